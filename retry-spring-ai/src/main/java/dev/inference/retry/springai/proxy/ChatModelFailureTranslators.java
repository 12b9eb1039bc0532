package dev.inference.retry.springai.proxy;

import dev.inference.retry.Classification;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.support.SpringAiProvider;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The {@link ChatModelFailureTranslator}s a retried chat model consults, in order: the application's,
 * then the built-in ones whose libraries are on the class path. Immutable and thread-safe.
 */
public final class ChatModelFailureTranslators {

    private static final Log logger = LogFactory.getLog(ChatModelFailureTranslators.class);

    private final List<ChatModelFailureTranslator> translators;

    private ChatModelFailureTranslators(List<ChatModelFailureTranslator> translators) {
        this.translators = List.copyOf(translators);
    }

    /**
     * Returns the translators of an application.
     *
     * @param application the application's translators, in their order, asked first
     * @param providers the providers whose client libraries bring translators
     * @param classLoader the class loader in which to look for the built-in translators' libraries
     * @return the application's translators followed by the built-in ones
     */
    public static ChatModelFailureTranslators of(List<ChatModelFailureTranslator> application,
            List<SpringAiProvider> providers, @Nullable ClassLoader classLoader) {
        List<ChatModelFailureTranslator> all = new ArrayList<>(application);
        all.addAll(builtIn(providers, classLoader, Clock.systemUTC()));
        return new ChatModelFailureTranslators(all);
    }

    /**
     * Returns the built-in translators whose libraries are on the class path: Spring's HTTP clients',
     * then the providers', then Spring AI's retry exceptions.
     *
     * @param providers the providers whose client libraries bring translators
     * @param classLoader the class loader in which to look for the libraries
     * @param clock what "now" is for a {@code Retry-After} date
     * @return the translators, in a fixed order
     */
    static List<ChatModelFailureTranslator> builtIn(List<SpringAiProvider> providers, @Nullable ClassLoader classLoader,
            Clock clock) {
        List<ChatModelFailureTranslator> builtIn = new ArrayList<>();
        if (ClassUtils.isPresent("org.springframework.web.client.RestClientResponseException", classLoader)) {
            builtIn.add(HttpClientFailureTranslator.SpringWeb.translator(clock));
        }
        if (ClassUtils.isPresent("org.springframework.web.reactive.function.client.WebClientResponseException",
                classLoader)) {
            builtIn.add(HttpClientFailureTranslator.WebFlux.translator(clock));
        }
        for (SpringAiProvider provider : providers) {
            for (SpringAiProvider.BuiltInTranslator translator : provider.translators()) {
                if (ClassUtils.isPresent(translator.library(), classLoader)) {
                    builtIn.add(translator.factory().apply(clock));
                }
            }
        }
        if (ClassUtils.isPresent("org.springframework.ai.retry.TransientAiException", classLoader)) {
            builtIn.add(new SpringAiRetryFailureTranslator());
        }
        return builtIn;
    }

    /**
     * Returns the failure the retry classifies in place of what a call threw. A failure whose cause chain
     * the core can classify on its own (it holds a typed failure, a cancellation, an interrupt, a passed
     * deadline, a shutdown or an exhaustion) is left to the core. Otherwise each translator is asked about
     * the failure, then about each of its causes in turn, and the first answer is the typed failure.
     *
     * @param thrown what a call threw
     * @return the typed failure a translator gave, or {@code thrown} itself when none knew it
     */
    public RuntimeException typedFailureOf(RuntimeException thrown) {
        if (Classification.of(thrown).kind() != Classification.Kind.UNTYPED) {
            return thrown;
        }
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Throwable link = thrown; link != null && seen.add(link); link = link.getCause()) {
            for (ChatModelFailureTranslator translator : this.translators) {
                Optional<RuntimeException> typed = translate(translator, link);
                if (typed.isPresent()) {
                    return typed.get();
                }
            }
        }
        return thrown;
    }

    /** Asks one translator; one that breaks its contract by throwing is taken not to know the failure. */
    private static Optional<RuntimeException> translate(ChatModelFailureTranslator translator, Throwable failure) {
        try {
            return translator.translate(failure);
        }
        catch (RuntimeException ex) {
            logger.warn("The ChatModelFailureTranslator " + translator + " threw while translating " + failure
                    + "; it is taken not to know that failure", ex);
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "ChatModelFailureTranslators" + this.translators;
    }
}
