package dev.inference.retry.springai.proxy;

import dev.inference.client.CallContext;
import dev.inference.retry.BlockingRetry;
import dev.inference.retry.ExhaustedException;
import dev.inference.retry.Operation;
import dev.inference.retry.Retrier;
import dev.inference.retry.RetryBudgetExhaustedException;
import dev.inference.retry.reactor.ReactorRetry;
import dev.inference.retry.springai.exchange.FallbackMark;
import java.lang.reflect.Method;
import java.util.IdentityHashMap;
import java.util.Optional;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.StreamingChatModel;
import org.springframework.util.ReflectionUtils;
import reactor.core.publisher.Flux;

/**
 * Retries the calls of one chat model bean above its HTTP exchange, in a proxy of the bean's class,
 * with the bean's {@link Retrier}: the methods {@link ChatModel} and {@link StreamingChatModel} declare
 * ({@link #CHAT_METHODS}). A {@code call} is an {@link Operation#INVOKE}, invoked again after a blocking
 * wait that an interrupt ends; a {@code stream} is an {@link Operation#STREAM}, retried until its first
 * element with {@link ReactorRetry}'s non-blocking waits, after which every signal passes through.
 *
 * <p>It retries on the typed failure that the {@link ChatModelFailureTranslators} make of what the model
 * threw. The caller gets a permanent failure as the model threw it and, when attempts run out, an
 * {@link ExhaustedException} (or {@link RetryBudgetExhaustedException}) whose cause is the last failure
 * as thrown.
 *
 * <p>Trap: a retry repeats the call whole, so a model that ran tools inside its {@code call} would run
 * them again. No model of Spring AI 2.0.1 does (tools run in {@code ChatClient}'s advisor); an
 * application's own model that does must not be retried here. Immutable and thread-safe.
 */
final class RetryingChatModelInterceptor implements MethodInterceptor {

    /** The methods that {@link ChatModel} and {@link StreamingChatModel} declare as calls and streams. */
    static final StaticMethodMatcherPointcut CHAT_METHODS = new StaticMethodMatcherPointcut() {

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return isChatMethod(method);
        }

        @Override
        public String toString() {
            return "ChatModel.call and stream methods";
        }
    };

    private final Retrier retrier;

    private final BlockingRetry blocking;

    private final ReactorRetry streams;

    private final ChatModelFailureTranslators translators;

    RetryingChatModelInterceptor(Retrier retrier, ChatModelFailureTranslators translators) {
        this.retrier = retrier;
        this.blocking = BlockingRetry.of(retrier);
        this.streams = ReactorRetry.of(retrier);
        this.translators = translators;
    }

    /**
     * Tells whether a method is one of the calls or streams that {@link ChatModel} or
     * {@link StreamingChatModel} declares (or an implementation of one).
     *
     * @param method the method
     * @return {@code true} for a {@code call} or a {@code stream} of the chat model interfaces
     */
    static boolean isChatMethod(Method method) {
        String name = method.getName();
        if (!name.equals("call") && !name.equals("stream")) {
            return false;
        }
        return ReflectionUtils.findMethod(ChatModel.class, name, method.getParameterTypes()) != null;
    }

    /**
     * Returns the retrier of the bean.
     *
     * @return the retrier
     */
    Retrier retrier() {
        return this.retrier;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        // The advisor's pointcut lets only the chat methods through; a Spring AOP proxy can clone its invocations.
        if (!(invocation instanceof ProxyMethodInvocation attempts)) {
            return invocation.proceed();
        }
        if (Flux.class.isAssignableFrom(invocation.getMethod().getReturnType())) {
            return stream(attempts);
        }
        return call(attempts);
    }

    /** Makes attempts on the caller's thread until one succeeds or the execution gives up. */
    private @Nullable Object call(ProxyMethodInvocation invocation) throws Throwable {
        ClientFailures failures = new ClientFailures(this.translators);
        BlockingRetry.Attempts<Optional<Object>, Throwable> attempts = new BlockingRetry.Attempts<>() {

            @Override
            public Optional<Object> attempt(int attempt) throws Throwable {
                // A clone per attempt: an invocation proceeds once, through the rest of the advice chain.
                return Optional.ofNullable(invocation.invocableClone().proceed());
            }

            @Override
            public RuntimeException failureOf(RuntimeException thrown) {
                return failures.typed(thrown);
            }

            @Override
            public RuntimeException thrownFor(RuntimeException failure) {
                return failures.asThrown(failure);
            }
        };
        return this.blocking.call(Operation.INVOKE, FallbackMark.mark(CallContext.background()), attempts).orElse(null);
    }

    /** Returns a stream whose every subscription is one call, retried until its first element. */
    private Flux<?> stream(ProxyMethodInvocation invocation) {
        return Flux.deferContextual((view) -> {
            ClientFailures failures = new ClientFailures(this.translators);
            Flux<Object> attempt = Flux.defer(() -> proceed(invocation.invocableClone()))
                .onErrorMap(RuntimeException.class, failures::typed);
            return this.streams.flux(attempt, FallbackMark.mark(CallContext.background(), view))
                .onErrorMap(failures::asThrown);
        });
    }

    @SuppressWarnings("unchecked")
    private static Flux<Object> proceed(MethodInvocation invocation) {
        Object stream;
        try {
            stream = invocation.proceed();
        }
        catch (RuntimeException ex) {
            return Flux.error(ex);
        }
        catch (Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            return Flux.error(ex);
        }
        if (stream == null) {
            return Flux.error(new NullPointerException("The chat model's " + invocation.getMethod().getName()
                    + " returned null instead of a Flux"));
        }
        return (Flux<Object>) stream;
    }

    @Override
    public String toString() {
        return "RetryingChatModelInterceptor[" + this.retrier + "]";
    }

    /**
     * The failures of one call: which typed failure stood in for which exception as the model threw it,
     * so that the caller gets the latter. Its methods are called one at a time (by the calling thread, or
     * by the serialized signals of one subscription), and synchronized so that each sees the last.
     */
    private static final class ClientFailures {

        private final ChatModelFailureTranslators translators;

        /** The typed failures that stood in for what the model threw, and what it threw. */
        private final IdentityHashMap<Throwable, RuntimeException> thrownBy = new IdentityHashMap<>(2);

        ClientFailures(ChatModelFailureTranslators translators) {
            this.translators = translators;
        }

        /** Returns the failure to classify in place of what the model threw, and remembers it. */
        synchronized RuntimeException typed(RuntimeException thrown) {
            RuntimeException typed = this.translators.typedFailureOf(thrown);
            if (typed != thrown) {
                this.thrownBy.put(typed, thrown);
            }
            return typed;
        }

        /**
         * Returns what the caller gets in place of the exception a call ended with: the exception as the
         * model threw it in place of a typed failure that stood in for it, and an exhaustion with the
         * failures as the model threw them; anything else (a cancellation, a shutdown, a passed deadline)
         * as it is.
         */
        Throwable asThrown(Throwable ended) {
            return (ended instanceof RuntimeException failure) ? asThrown(failure) : ended;
        }

        /** Returns what the caller gets in place of a runtime exception a call ended with; see above. */
        synchronized RuntimeException asThrown(RuntimeException ended) {
            RuntimeException thrown = this.thrownBy.get(ended);
            if (thrown != null) {
                return thrown;
            }
            if (ended instanceof ExhaustedException exhausted) {
                RuntimeException last = this.thrownBy.get(exhausted.getCause());
                if (last != null) {
                    return exhausted(exhausted, last);
                }
            }
            return ended;
        }

        private ExhaustedException exhausted(ExhaustedException exhausted, RuntimeException last) {
            ExhaustedException asThrown;
            if (exhausted.getClass() == ExhaustedException.class) {
                asThrown = new ExhaustedException(exhausted.attempts(), last);
            }
            else if (exhausted.getClass() == RetryBudgetExhaustedException.class) {
                asThrown = new RetryBudgetExhaustedException(exhausted.attempts(), last);
            }
            else {
                return exhausted;
            }
            for (Throwable suppressed : exhausted.getSuppressed()) {
                RuntimeException thrown = this.thrownBy.get(suppressed);
                asThrown.addSuppressed((thrown != null) ? thrown : suppressed);
            }
            asThrown.setStackTrace(exhausted.getStackTrace());
            return asThrown;
        }
    }
}
