package dev.inference.retry.springai;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameStartingWith;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import dev.inference.retry.springai.internal.PrivateMember;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code retry-spring-ai} is laid out by role and by provider: the provider packages never reach into
 * one another, the provider-neutral packages reach into no provider, only the wiring knows every
 * provider, and only the {@code internal} package reaches past the public API of Spring AI and of the
 * provider SDKs.
 */
class SpringAiArchitectureTests {

    private static final String BASE = "dev.inference.retry.springai";

    private static final String INTERNAL_NAME = BASE + ".internal";

    private static final String INTERNAL = INTERNAL_NAME + "..";

    private static final String[] PROVIDERS = { BASE + ".openai..", BASE + ".anthropic..", BASE + ".ollama..",
            BASE + ".google.." };

    private static final String[] PROVIDER_SDKS = { "com.openai..", "com.anthropic..", "com.google.genai..",
            "org.springframework.ai.openai..", "org.springframework.ai.anthropic..", "org.springframework.ai.ollama..",
            "org.springframework.ai.google.." };

    // Dependencies are judged by name: resolving the libraries' classes from the class path only costs time.
    private static final JavaClasses module = ArchConfiguration.withThreadLocalScope((configuration) -> {
        configuration.setResolveMissingDependenciesFromClassPath(false);
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(BASE);
    });

    @Test
    void importsEveryPackageOfTheModule() {
        assertThat(module.containPackage(BASE + ".exchange")).isTrue();
        assertThat(module.containPackage(BASE + ".openai")).isTrue();
        assertThat(module.containPackage(BASE + ".autoconfigure")).isTrue();
    }

    @Test
    void onlyTheInternalsPackageReadsPrivateMembersOrProxiesInterfaces() {
        noClasses().that().resideOutsideOfPackage(INTERNAL)
            .should().callMethodWhere(target(name("setAccessible")).or(target(name("trySetAccessible")))
                .or(target(name("makeAccessible"))).or(target(name("findField")))
                .or(target(nameStartingWith("getDeclared"))))
            .orShould().callConstructorWhere(target(owner(assignableTo(PrivateMember.class))))
            .orShould().dependOnClassesThat().belongToAnyOf(Proxy.class, InvocationHandler.class)
            .because("every private member of Spring AI or of a provider SDK is declared in " + INTERNAL
                    + ", beside the version it was read from")
            .check(module);
    }

    @Test
    void theInternalsPackageImportsNoOtherPackageOfTheModule() {
        noClasses().that().resideInAPackage(INTERNAL).should()
            .dependOnClassesThat(resideInAPackage(BASE + ".*..").and(resideOutsideOfPackage(INTERNAL)))
            .check(module);
    }

    @ParameterizedTest
    @ValueSource(strings = { "openai:OpenAi", "anthropic:Anthropic", "ollama:Ollama", "google:Google" })
    void aProviderPackageReadsOnlyTheInternalsOfItsOwnProvider(String provider) {
        String[] parts = provider.split(":");
        noClasses().that().resideInAPackage(BASE + "." + parts[0] + "..").should().dependOnClassesThat()
            .haveNameMatching(INTERNAL_NAME + "\\.(?!" + parts[1] + ")\\w+Internals")
            .check(module);
    }

    @Test
    void providerPackagesNeverImportEachOther() {
        SlicesRuleDefinition.slices().matching(BASE + ".(openai|anthropic|ollama|google)..").should().notDependOnEachOther()
            .check(module);
    }

    @ParameterizedTest
    @ValueSource(strings = { ".exchange..", ".support..", ".proxy.." })
    void providerNeutralPackagesImportNoProviderNorItsSdk(String pkg) {
        noClasses().that().resideInAPackage(BASE + pkg).should().dependOnClassesThat()
            .resideInAnyPackage(concat(PROVIDERS, PROVIDER_SDKS))
            .check(module);
    }

    @Test
    void onlyTheWiringImportsTheAutoConfigurationPackage() {
        noClasses().that().resideOutsideOfPackage(BASE + ".autoconfigure..").should().dependOnClassesThat()
            .resideInAPackage(BASE + ".autoconfigure..")
            .check(module);
    }

    @Test
    void importsNoSpringCloud() {
        noClasses().should().dependOnClassesThat().resideInAPackage("org.springframework.cloud..")
            .because("the runtime refresh reaches Spring AI models through their retriers, never through Spring Cloud")
            .check(module);
    }

    @Test
    void thePublicApiImportsNoneOfTheInternalPackages() {
        noClasses().that().resideInAPackage(BASE).should().dependOnClassesThat()
            .resideInAPackage(BASE + ".*..")
            .check(module);
    }

    private static String[] concat(String[] first, String[] second) {
        String[] all = new String[first.length + second.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(second, 0, all, first.length, second.length);
        return all;
    }
}
