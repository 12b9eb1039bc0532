package dev.inference.retry.cooldown.redis;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * {@code retry-cooldown-redis} sits on the core and the base auto-configuration, and nothing of them
 * needs it: an application without Redis never loads it. It knows nothing of Spring AI.
 */
class RedisModuleArchitectureTests {

    private static final String REDIS = "dev.inference.retry.cooldown.redis..";

    // Dependencies are judged by name: resolving the libraries' classes from the class path only costs time.
    private static final JavaClasses classes = ArchConfiguration.withThreadLocalScope((configuration) -> {
        configuration.setResolveMissingDependenciesFromClassPath(false);
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.inference");
    });

    @Test
    void importsTheCoreTheBaseAutoConfigurationAndTheModule() {
        assertThat(classes.contain("dev.inference.retry.RetryClient")).isTrue();
        assertThat(classes.contain("dev.inference.retry.autoconfigure.InferenceRetryProtectionAutoConfiguration"))
            .isTrue();
        assertThat(classes.contain(RedisCooldownStore.class)).isTrue();
    }

    @Test
    void theCoreNeverNeedsTheRedisStore() {
        noClasses().that().resideInAnyPackage("dev.inference.client..", "dev.inference.failure..", "dev.inference.retry")
            .should().dependOnClassesThat().resideInAPackage(REDIS)
            .check(classes);
    }

    @Test
    void theBaseAutoConfigurationNeverNeedsTheRedisStore() {
        noClasses().that().resideInAPackage("dev.inference.retry.autoconfigure..")
            .should().dependOnClassesThat().resideInAPackage(REDIS)
            .check(classes);
    }

    @Test
    void theRedisStoreKnowsNothingOfSpringAi() {
        noClasses().that().resideInAPackage(REDIS)
            .should().dependOnClassesThat().resideInAnyPackage("org.springframework.ai..", "dev.inference.retry.springai..")
            .check(classes);
    }
}
