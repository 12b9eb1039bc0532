package dev.inference.retry.springai.fallback;

import dev.inference.retry.FallbackExhaustedException;
import dev.inference.retry.fallback.FallbackChain;
import dev.inference.retry.fallback.FallbackReason;
import dev.inference.retry.springai.exchange.FallbackMark;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import reactor.core.publisher.Flux;

/**
 * A Spring AI {@link ChatModel} (and so a {@code StreamingChatModel}) that answers from the first of
 * its member models that can, by the rules of {@link FallbackChain}; each member is retried beneath
 * its own bean, once, with its own policy.
 *
 * <p>The first member gets the prompt as it was given (with its model replaced by its
 * {@code models.<member>} entry, if it has one). Every later member gets the same messages with the
 * prompt's portable options: those of {@link ChatOptions}, and the tool callbacks and tool context of
 * {@link ToolCallingChatOptions}; for the model name, its {@code models.<member>} entry or none, so
 * that it answers with the model its own properties name. Spring AI 2.0's models read only options of
 * their own class, so each member's options are its defaults ({@link ChatModel#getDefaultOptions()})
 * with the prompt's portable options set over them. A member that comes to wait for a
 * {@code Retry-After} or a cool-down while a later one could answer gives up at once: the word reaches
 * the retry loops beneath it on the calling thread and in the stream's Reactor context
 * ({@link FallbackMark}).
 *
 * <p>A stream falls over only before its first response: once a member's stream has begun, its
 * failure is final, and no response ever comes from two members. Trap: a member whose client starts
 * its exchange later on a thread of its own, outside Reactor, waits for a {@code Retry-After} as it
 * would alone. Immutable and thread-safe.
 */
public final class FallbackChatModel implements ChatModel {

    private final FallbackChain chain;

    private final List<ChatModel> members;

    private final UnaryOperator<RuntimeException> typing;

    /**
     * Creates the chain.
     *
     * @param chain the rules, whose members are {@code members} in the same order, with each member's
     *     own model name ({@link FallbackChain#modelOf})
     * @param members the member models
     * @param typing the typed failure a member's exception stands for, as the provider integration
     *     that retried the member types it, or the exception itself when none knows it
     * @throws IllegalArgumentException if the number of models differs from the chain's members
     */
    public FallbackChatModel(FallbackChain chain, List<ChatModel> members, UnaryOperator<RuntimeException> typing) {
        this.chain = Objects.requireNonNull(chain, "chain must not be null");
        this.typing = Objects.requireNonNull(typing, "typing must not be null");
        this.members = List.copyOf(members);
        if (this.members.size() != chain.members().size()) {
            throw new IllegalArgumentException("The chain has " + chain.members().size() + " members, not "
                    + this.members.size() + " models");
        }
    }

    /**
     * Returns the chain's rules and its members' skip state.
     *
     * @return the chain
     */
    public FallbackChain chain() {
        return this.chain;
    }

    /**
     * Answers from the first member that can.
     *
     * @param prompt the prompt
     * @return the answering member's response; its metadata names the model that answered
     * @throws FallbackExhaustedException when every member fell over
     * @throws RuntimeException a member's failure that does not fall over (a bad request, a
     *     cancellation), as the member threw it
     */
    @Override
    public ChatResponse call(Prompt prompt) {
        Objects.requireNonNull(prompt, "prompt must not be null");
        return this.chain.call(new FallbackChain.Members<ChatResponse>() {

            @Override
            public ChatResponse call(int index, boolean hasFallback) {
                ChatModel member = FallbackChatModel.this.members.get(index);
                Prompt given = promptFor(index, prompt);
                return hasFallback ? FallbackMark.call(() -> member.call(given)) : member.call(given);
            }

            @Override
            public Optional<FallbackReason> reasonFor(RuntimeException failure) {
                return ChatModelFailures.reasonFor(failure, FallbackChatModel.this.typing);
            }
        });
    }

    /**
     * Streams from the first member whose stream begins; falls over only before a member's first
     * response.
     *
     * @param prompt the prompt
     * @return the answering member's responses; a {@link FallbackExhaustedException} when every member
     *     fell over before its stream began
     */
    @Override
    public Flux<ChatResponse> stream(Prompt prompt) {
        Objects.requireNonNull(prompt, "prompt must not be null");
        return Flux.defer(() -> streamFrom(this.chain.start((failure) -> ChatModelFailures.reasonFor(failure, this.typing)), prompt));
    }

    private Flux<ChatResponse> streamFrom(FallbackChain.Call call, Prompt prompt) {
        int index = call.next();
        if (index < 0) {
            return Flux.error(call.exhausted());
        }
        ChatModel model = this.members.get(index);
        Prompt given = promptFor(index, prompt);
        Flux<ChatResponse> scoped = call.hasFallback() ? FallbackMark.stream(() -> model.stream(given))
                : model.stream(given);
        AtomicBoolean begun = new AtomicBoolean();
        return scoped.doOnNext((response) -> {
            if (begun.compareAndSet(false, true)) {
                call.answered();
            }
        }).onErrorResume((failure) -> {
            if (!begun.get() && failure instanceof RuntimeException thrown && call.fellOver(thrown)) {
                return streamFrom(call, prompt);
            }
            return Flux.error(failure);
        }).doOnComplete(() -> {
            if (begun.compareAndSet(false, true)) {
                call.answered();
            }
        });
    }

    /**
     * Returns the options a caller starts from, such as Spring AI's {@code ChatClient}: portable ones,
     * with no model name, which each member takes over its own defaults.
     *
     * @return empty portable options
     */
    @Override
    public ChatOptions getDefaultOptions() {
        return ToolCallingChatOptions.builder().build();
    }

    /**
     * The prompt a member gets: for the first, as given (its model replaced by the member's own, if it has
     * one); for the others, the messages and the portable options without a model name. Either way the
     * options are of the member's own class, over its defaults, as Spring AI's models need them.
     */
    Prompt promptFor(int index, Prompt prompt) {
        ChatModel member = this.members.get(index);
        @Nullable String model = this.chain.modelOf(index).orElse(null);
        ChatOptions options = prompt.getOptions();
        ChatOptions defaults = member.getDefaultOptions();
        if (index == 0 && model == null && (options == null || defaults.getClass().isInstance(options))) {
            return prompt;
        }
        ChatOptions.Builder<?> builder = defaults.mutate();
        if (options != null) {
            copyPortable(options, builder);
            if (index == 0 && options.getModel() != null) {
                builder.model(options.getModel());
            }
        }
        if (model != null) {
            builder.model(model);
        }
        return new Prompt(prompt.getInstructions(), builder.build());
    }

    /** Copies the options every provider understands, the ones set, over a member's defaults. */
    private static void copyPortable(ChatOptions options, ChatOptions.Builder<?> builder) {
        setIfPresent(options.getFrequencyPenalty(), builder::frequencyPenalty);
        setIfPresent(options.getMaxTokens(), builder::maxTokens);
        setIfPresent(options.getPresencePenalty(), builder::presencePenalty);
        setIfPresent(options.getStopSequences(), builder::stopSequences);
        setIfPresent(options.getTemperature(), builder::temperature);
        setIfPresent(options.getTopK(), builder::topK);
        setIfPresent(options.getTopP(), builder::topP);
        if (options instanceof ToolCallingChatOptions tools && builder instanceof ToolCallingChatOptions.Builder<?> toolBuilder) {
            List<ToolCallback> callbacks = tools.getToolCallbacks();
            if (callbacks != null && !callbacks.isEmpty()) {
                toolBuilder.toolCallbacks(callbacks);
            }
            Map<String, Object> context = tools.getToolContext();
            if (context != null && !context.isEmpty()) {
                toolBuilder.toolContext(context);
            }
        }
    }

    private static <T> void setIfPresent(@Nullable T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }

    @Override
    public String toString() {
        return "FallbackChatModel[name=" + this.chain.name() + ", members=" + this.chain.members() + "]";
    }
}
