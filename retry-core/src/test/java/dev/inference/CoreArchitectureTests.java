package dev.inference;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * {@code retry-core} is plain Java: nothing in it imports Spring, Micrometer or Reactor, and it
 * depends on nothing but the JDK and JSpecify; in particular never on the modules built on it, such as
 * the Redis cool-down store's. Within it, the retries never need the fallback chains built on them.
 */
class CoreArchitectureTests {

    private static final String[] CORE = { "dev.inference.client", "dev.inference.failure", "dev.inference.retry",
            "dev.inference.retry.cooldown", "dev.inference.retry.fallback", "dev.inference.retry.time" };

    // Dependencies are judged by name: resolving the JDK's classes from the class path only costs time.
    private static final JavaClasses core = ArchConfiguration.withThreadLocalScope((configuration) -> {
        configuration.setResolveMissingDependenciesFromClassPath(false);
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.inference");
    });

    @Test
    void importsTheWholeCore() {
        assertThat(core.contain("dev.inference.retry.RetryClient")).isTrue();
        assertThat(core.contain("dev.inference.client.CallContext")).isTrue();
        assertThat(core.contain("dev.inference.failure.RetryAfter")).isTrue();
    }

    @Test
    void coreImportsNothingFromSpringMicrometerOrReactor() {
        noClasses().should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.springframework..", "io.micrometer..", "reactor..", "org.reactivestreams..")
            .check(core);
    }

    @Test
    void coreDependsOnlyOnTheJdkJSpecifyAndItself() {
        classes().should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "org.jspecify.annotations", CORE[0], CORE[1], CORE[2], CORE[3], CORE[4],
                    CORE[5])
            .check(core);
    }

    @Test
    void coolDownStoresNeverNeedTheRetryLoopThatUsesThem() {
        noClasses().that().resideInAPackage("dev.inference.retry.cooldown")
            .should().dependOnClassesThat().resideInAPackage("dev.inference.retry")
            .check(core);
    }

    @Test
    void coreNeverNeedsTheRedisCooldownStoresModule() {
        noClasses().should().dependOnClassesThat().resideInAPackage("dev.inference.retry.cooldown.redis..").check(core);
    }

    @Test
    void theRetryPackageNeverNeedsTheFallbackChains() {
        noClasses().that().resideInAPackage("dev.inference.retry").should().dependOnClassesThat()
            .resideInAPackage("dev.inference.retry.fallback..")
            .because("a chain is built on retried clients, never the other way round")
            .check(core);
    }

    @Test
    void coreDeclaresNoSynchronizedMethod() {
        methods().should().notHaveModifier(JavaModifier.SYNCHRONIZED).check(core);
    }

    @Test
    void coreNeverWaitsOnAMonitor() {
        noClasses().should().callMethod(Object.class, "wait")
            .orShould().callMethod(Object.class, "wait", long.class)
            .orShould().callMethod(Object.class, "wait", long.class, int.class)
            .check(core);
    }
}
