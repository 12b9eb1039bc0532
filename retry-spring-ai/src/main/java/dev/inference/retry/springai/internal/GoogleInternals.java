package dev.inference.retry.springai.internal;

import com.google.genai.ApiClient;
import com.google.genai.Client;
import java.util.List;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;

/**
 * The private members of Spring AI's Google GenAI chat model and of the Google GenAI SDK's client that
 * the rebuild in {@code dev.inference.retry.springai.google} reads, each beside the version it was read
 * from and the reason no public way exists. Spring AI offers no customizer of the SDK's OkHttp client;
 * the SDK takes one in {@code ClientOptions.customHttpClient}, so the rebuild makes a client of its own
 * with the settings read here.
 *
 * <p>For another version whose members differ, declare its members here beside these and choose by
 * {@link PrivateField#isPresent()}; a member not found fails startup with a
 * {@link dev.inference.retry.springai.ModelNotRetriableException} naming {@link #READ_FROM}.
 */
public final class GoogleInternals {

    /** What these members were read from, for the exception of a member not found. */
    public static final String READ_FROM = "Spring AI 2.0.1 with the Google GenAI SDK 1.65.0";

    /** The chat model's SDK client: its constructor takes it, and no getter gives it back. */
    public static final PrivateField CHAT_CLIENT = new PrivateField(GoogleGenAiChatModel.class,
            "genAiClient", READ_FROM);

    /** The chat model's tool calling manager: its constructor takes it, and no getter gives it back. */
    public static final PrivateField CHAT_TOOL_CALLING_MANAGER = new PrivateField(GoogleGenAiChatModel.class,
            "toolCallingManager", READ_FROM);

    /** The chat model's observation registry: its constructor takes it, and no getter gives it back. */
    public static final PrivateField CHAT_OBSERVATION_REGISTRY = new PrivateField(GoogleGenAiChatModel.class,
            "observationRegistry", READ_FROM);

    /** The chat model's observation convention: it has a setter and no getter. */
    public static final PrivateField CHAT_OBSERVATION_CONVENTION = new PrivateField(GoogleGenAiChatModel.class,
            "observationConvention", READ_FROM);

    /** The SDK client's API client (key, project, credentials, HTTP options): the SDK keeps it internal. */
    public static final PrivateField API_CLIENT = new PrivateField(Client.class, "apiClient", READ_FROM);

    /** The API client's client options: its builder takes them, and no getter gives them back. */
    public static final PrivateField CLIENT_OPTIONS = new PrivateField(ApiClient.class, "clientOptions", READ_FROM);

    /** Every member above, for a native image's reflection hints. */
    public static final List<PrivateMember> MEMBERS = List.of(CHAT_CLIENT, CHAT_TOOL_CALLING_MANAGER,
            CHAT_OBSERVATION_REGISTRY, CHAT_OBSERVATION_CONVENTION, API_CLIENT, CLIENT_OPTIONS);

    private GoogleInternals() {
    }
}
