package dev.inference.retry.autoconfigure;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The auto-configuration's optional integrations stay in their own packages, so that an application
 * without the library never loads a class that needs it; the settings and the startup failures lie
 * beneath the auto-configuration, and the sub-packages never need each other in a loop.
 */
class AutoConfigureArchitectureTests {

    private static final String BASE = "dev.inference.retry.autoconfigure";

    // Dependencies are judged by name: resolving the libraries' classes from the class path only costs time.
    private static final JavaClasses module = ArchConfiguration.withThreadLocalScope((configuration) -> {
        configuration.setResolveMissingDependenciesFromClassPath(false);
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(BASE);
    });

    @Test
    void importsTheRefreshPackage() {
        assertThat(module.containPackage(BASE + ".refresh")).isTrue();
    }

    @Test
    void theSettingsAndTheStartupFailuresNeverNeedAnAutoConfiguration() {
        noClasses().that().resideInAnyPackage(BASE + ".settings", BASE + ".failure")
            .should().dependOnClassesThat().haveSimpleNameEndingWith("AutoConfiguration")
            .because("the auto-configurations are built on the settings and report through the failures")
            .check(module);
    }

    @Test
    void theSettingsNeedNothingElseOfTheModule() {
        noClasses().that().resideInAPackage(BASE + ".settings")
            .should().dependOnClassesThat().resideInAnyPackage(BASE, BASE + ".failure..", BASE + ".fallback..",
                    BASE + ".refresh..", BASE + ".observation..")
            .because("the bound properties and the settings resolved from them are the bottom of the module")
            .check(module);
    }

    @Test
    void theStartupFailuresNeedOnlyTheSettings() {
        noClasses().that().resideInAPackage(BASE + ".failure")
            .should().dependOnClassesThat().resideInAnyPackage(BASE, BASE + ".fallback..", BASE + ".refresh..",
                    BASE + ".observation..")
            .because("a startup report needs only the settings whose error it describes")
            .check(module);
    }

    @Test
    void theSubPackagesNeverNeedEachOtherInALoop() {
        slices().matching(BASE + ".(*)..").should().beFreeOfCycles().check(module);
    }

    @Test
    void onlyTheRefreshPackageImportsSpringCloud() {
        noClasses().that().resideOutsideOfPackage(BASE + ".refresh..")
            .should().dependOnClassesThat().resideInAPackage("org.springframework.cloud..")
            .because("Spring Cloud Context is optional: the base auto-configuration must load without it")
            .check(module);
    }
}
