package dev.inference.retry.autoconfigure;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The auto-configuration's optional integrations stay in their own packages, so that an application
 * without the library never loads a class that needs it.
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
    void onlyTheRefreshPackageImportsSpringCloud() {
        noClasses().that().resideOutsideOfPackage(BASE + ".refresh..")
            .should().dependOnClassesThat().resideInAPackage("org.springframework.cloud..")
            .because("Spring Cloud Context is optional: the base auto-configuration must load without it")
            .check(module);
    }
}
