package dev.inference.sample.provider;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI-compatible provider on a port of 127.0.0.1, ephemeral unless one is given, that fails
 * on purpose. It serves {@code POST /v1/chat/completions}, unary and streamed, and
 * {@code POST /v1/embeddings}, answering each request with an {@link Outcome}: the next
 * {@linkplain #script(Outcome...) scripted} one if there is any, or else one drawn from its
 * {@link FaultMix} with a seeded random generator, so that a run is
 * reproducible. The answer is always {@code "You said: " + prompt}, streamed one word per chunk; an
 * embedding is computed from its text alone.
 *
 * <p>It is written on plain sockets, with one exchange per connection, so that it can fail the
 * ways real providers do: reset a connection before answering, or cut a stream after a few chunks.
 * It records every request it reads, body and headers byte for byte, so tests can count attempts
 * and check that a retry sent exactly the same body.
 *
 * <p>In its rate-limited mode ({@link #start(FaultMix, long, Duration, int, RateLimit)}) it fails
 * nothing on purpose: it admits a fixed number of requests per window, shared by every caller, tells
 * what is left with OpenAI's rate-limit headers on every answer, and answers 429 past the limit.
 *
 * <p>Thread-safe. {@linkplain #close() Closing} it stops it and drops every open connection.
 */
public final class FlakyProvider implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(FlakyProvider.class);

    private static final String CHAT_COMPLETIONS = "/v1/chat/completions";

    private static final String EMBEDDINGS = "/v1/embeddings";

    private static final String MESSAGES = "/v1/messages";

    /** Chunks a {@link Outcome#CUT cut} stream delivers before the connection closes. */
    private static final int CHUNKS_BEFORE_CUT = 2;

    /** How long a {@linkplain #start(FaultMix, long, Duration, int, RateLimit) provider} is slow by default. */
    public static final Duration DEFAULT_SLOW_DELAY = Duration.ofSeconds(60);

    /** The longest gap between the keep-alives of a {@link Outcome#KEEP_ALIVE} stream. */
    private static final Duration KEEP_ALIVE_INTERVAL = Duration.ofSeconds(1);

    /** How long a client may take to send its request before the provider hangs up. */
    private static final Duration REQUEST_READ_TIMEOUT = Duration.ofSeconds(30);

    private final ServerSocket server;

    private final FaultMix faults;

    /** Guarded by itself: each draw is a short computation, never a wait. */
    private final SplittableRandom random;

    private final Duration retryAfter;

    /** How long a slow answer keeps the client waiting: see {@link Outcome#SLOW}. */
    private final Duration slowDelay;

    /** The limit of requests per window in the rate-limited mode, or {@code null} in the flaky one. */
    private final @Nullable RateLimit rateLimit;

    private final Completions completions = new Completions();

    private final Embeddings embeddings = new Embeddings();

    private final Messages messages = new Messages();

    private final AtomicInteger backupRequests = new AtomicInteger();

    /** Whether the chat completions (the OpenAI side) answer 503 to every request: see {@link #setOpenAiDown}. */
    private volatile boolean openAiDown;

    private final Queue<Outcome> script = new ConcurrentLinkedQueue<>();

    private final List<RecordedRequest> requests = new CopyOnWriteArrayList<>();

    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();

    private final AtomicInteger completionIds = new AtomicInteger();

    private final ExecutorService workers;

    private FlakyProvider(ServerSocket server, FaultMix faults, long seed, Duration retryAfter,
            @Nullable RateLimit rateLimit, Duration slowDelay) {
        this.slowDelay = slowDelay;
        this.server = server;
        this.faults = faults;
        this.rateLimit = rateLimit;
        // SplittableRandom mixes its seed, so that neighbouring seeds give unrelated runs.
        this.random = new SplittableRandom(seed);
        this.retryAfter = retryAfter;
        AtomicInteger threads = new AtomicInteger();
        this.workers = Executors.newCachedThreadPool((task) -> {
            Thread thread = new Thread(task, "flaky-provider-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Starts a provider on an ephemeral port of 127.0.0.1.
     *
     * @param faults the fractions of requests to fail when nothing is scripted
     * @param seed the seed of the generator that draws each request's outcome
     * @param retryAfter the delay a 429 asks for, sent as {@code retry-after-ms} and as
     *     {@code Retry-After} rounded up to whole seconds
     * @return the running provider
     * @throws NullPointerException if {@code faults} or {@code retryAfter} is {@code null}
     * @throws IllegalArgumentException if {@code retryAfter} is shorter than a millisecond
     * @throws UncheckedIOException if no port can be opened
     */
    public static FlakyProvider start(FaultMix faults, long seed, Duration retryAfter) {
        return start(faults, seed, retryAfter, 0);
    }

    /**
     * Starts a provider on a given port of 127.0.0.1, so that other processes can be pointed at it.
     *
     * @param faults the fractions of requests to fail when nothing is scripted
     * @param seed the seed of the generator that draws each request's outcome
     * @param retryAfter the delay a 429 asks for, sent as {@code retry-after-ms} and as
     *     {@code Retry-After} rounded up to whole seconds
     * @param port the port to listen on, from 1 to 65535, or 0 for an ephemeral one
     * @return the running provider
     * @throws NullPointerException if {@code faults} or {@code retryAfter} is {@code null}
     * @throws IllegalArgumentException if {@code retryAfter} is shorter than a millisecond, or
     *     {@code port} is outside 0 to 65535
     * @throws UncheckedIOException if the port cannot be opened, as when another process holds it
     */
    public static FlakyProvider start(FaultMix faults, long seed, Duration retryAfter, int port) {
        return start(faults, seed, retryAfter, port, null);
    }

    /**
     * Starts a provider on a given port of 127.0.0.1, flaky or, with a rate limit, rate-limited: it
     * then answers every request within the limit (scripted outcomes still come first), with OpenAI's
     * rate-limit headers ({@code x-ratelimit-limit-requests}, {@code x-ratelimit-remaining-requests},
     * {@code x-ratelimit-reset-requests}) on every answer, and every request past it with a 429 whose
     * {@code Retry-After} and {@code retry-after-ms} ask for the time until the next window; the fault
     * mix and {@code retryAfter} are then not used.
     *
     * @param faults the fractions of requests to fail when nothing is scripted, in the flaky mode
     * @param seed the seed of the generator that draws each request's outcome
     * @param retryAfter the delay a 429 of the flaky mode asks for
     * @param port the port to listen on, from 1 to 65535, or 0 for an ephemeral one
     * @param rateLimit the limit that every caller shares, or {@code null} for the flaky mode
     * @return the running provider
     * @throws NullPointerException if {@code faults} or {@code retryAfter} is {@code null}
     * @throws IllegalArgumentException if {@code retryAfter} is shorter than a millisecond, or
     *     {@code port} is outside 0 to 65535
     * @throws UncheckedIOException if the port cannot be opened, as when another process holds it
     */
    public static FlakyProvider start(FaultMix faults, long seed, Duration retryAfter, int port,
            @Nullable RateLimit rateLimit) {
        return start(faults, seed, retryAfter, port, rateLimit, DEFAULT_SLOW_DELAY);
    }

    /**
     * Starts a provider as {@link #start(FaultMix, long, Duration, int, RateLimit)} does, whose slow
     * answers ({@link Outcome#SLOW}, {@link Outcome#KEEP_ALIVE}, {@link Outcome#STALL_MID_STREAM})
     * keep the client waiting for {@code slowDelay}.
     *
     * @param faults the fractions of requests to fail when nothing is scripted, in the flaky mode
     * @param seed the seed of the generator that draws each request's outcome
     * @param retryAfter the delay a 429 of the flaky mode asks for
     * @param port the port to listen on, from 1 to 65535, or 0 for an ephemeral one
     * @param rateLimit the limit that every caller shares, or {@code null} for the flaky mode
     * @param slowDelay how long a slow answer makes the client wait, at least a millisecond
     * @return the running provider
     * @throws NullPointerException if {@code faults}, {@code retryAfter} or {@code slowDelay} is
     *     {@code null}
     * @throws IllegalArgumentException if {@code retryAfter} or {@code slowDelay} is shorter than a
     *     millisecond, or {@code port} is outside 0 to 65535
     * @throws UncheckedIOException if the port cannot be opened, as when another process holds it
     */
    public static FlakyProvider start(FaultMix faults, long seed, Duration retryAfter, int port,
            @Nullable RateLimit rateLimit, Duration slowDelay) {
        Objects.requireNonNull(slowDelay, "slowDelay must not be null");
        if (slowDelay.toMillis() < 1) {
            throw new IllegalArgumentException("slowDelay must be at least 1ms, was " + slowDelay);
        }
        Objects.requireNonNull(faults, "faults must not be null");
        Objects.requireNonNull(retryAfter, "retryAfter must not be null");
        if (retryAfter.toMillis() < 1) {
            throw new IllegalArgumentException("retryAfter must be at least 1ms, was " + retryAfter);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be from 0 (any free port) to 65535, was " + port);
        }
        ServerSocket server;
        try {
            server = new ServerSocket();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        }
        catch (IOException ex) {
            String which = (port != 0) ? "port " + port + " of 127.0.0.1" : "a loopback port";
            throw new UncheckedIOException("Could not open " + which + " for the embedded provider", ex);
        }
        FlakyProvider provider = new FlakyProvider(server, faults, seed, retryAfter, rateLimit, slowDelay);
        provider.workers.execute(provider::accept);
        return provider;
    }

    /**
     * Returns the base URL to point a client at.
     *
     * @return {@code http://127.0.0.1:<port>}
     */
    public URI baseUrl() {
        return URI.create("http://" + this.server.getInetAddress().getHostAddress() + ":" + this.server.getLocalPort());
    }

    /**
     * Makes the OpenAI side ({@code POST /v1/chat/completions}) answer 503 to every request, or serve
     * again: the switch that shows a fallback chain answering from the Anthropic side
     * ({@code POST /v1/messages}), which never fails on purpose.
     *
     * @param down {@code true} to fail every chat completion
     */
    public void setOpenAiDown(boolean down) {
        this.openAiDown = down;
    }

    /**
     * Queues outcomes for the next requests, in order; they take precedence over the fault mix.
     *
     * @param outcomes the outcomes of the next requests
     */
    public void script(Outcome... outcomes) {
        this.script.addAll(Arrays.asList(outcomes));
    }

    /**
     * Returns how many requests the provider has read since it started or was last
     * {@linkplain #reset() reset}, including those it then failed.
     *
     * @return the number of requests
     */
    public int requestCount() {
        return this.requests.size();
    }

    /**
     * Returns how many requests the Anthropic side ({@code POST /v1/messages}) answered since the
     * provider started or was last {@linkplain #reset() reset}; they are not among {@link #requests()}.
     *
     * @return the number of backup requests
     */
    public int backupRequestCount() {
        return this.backupRequests.get();
    }

    /**
     * Returns the requests read since the provider started or was last {@linkplain #reset() reset}.
     *
     * @return the requests in the order they were read; an unmodifiable snapshot
     */
    public List<RecordedRequest> requests() {
        return List.copyOf(this.requests);
    }

    /**
     * Returns how many connections are open: accepted and not yet closed by either side. An
     * abandoned request whose client released its connection is no longer counted.
     *
     * @return the number of open connections
     */
    public int openConnections() {
        return this.connections.size();
    }

    /**
     * Forgets the recorded requests and the outcomes still scripted, and serves the OpenAI side again
     * (see {@link #setOpenAiDown}). The fault mix's generator keeps its state.
     */
    public void reset() {
        this.script.clear();
        this.requests.clear();
        this.backupRequests.set(0);
        this.openAiDown = false;
    }

    /** Stops accepting connections and drops every open one. Idempotent. */
    @Override
    public void close() {
        try {
            this.server.close();
        }
        catch (IOException ex) {
            // Closing is all we wanted; there is nothing left to release.
        }
        this.connections.forEach(FlakyProvider::closeQuietly);
        this.workers.shutdownNow();
    }

    private void accept() {
        while (!this.server.isClosed()) {
            Socket socket;
            try {
                socket = this.server.accept();
            }
            catch (IOException ex) {
                // The server socket was closed: the provider is stopping.
                return;
            }
            this.connections.add(socket);
            this.workers.execute(() -> {
                try {
                    serve(socket);
                }
                finally {
                    this.connections.remove(socket);
                    closeQuietly(socket);
                }
            });
        }
    }

    private void serve(Socket socket) {
        try {
            socket.setSoTimeout(Math.toIntExact(REQUEST_READ_TIMEOUT.toMillis()));
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = new BufferedOutputStream(socket.getOutputStream());
            RecordedRequest request;
            try {
                request = Wire.readRequest(in);
            }
            catch (Wire.MalformedRequestException ex) {
                sendError(out, 400, "Bad Request", ex.reason(), "invalid_request_error", "malformed_http", Map.of(), null);
                return;
            }
            if (request == null) {
                return;
            }
            if (request.method().equals("POST") && request.path().equals(MESSAGES)) {
                // The backup side: never failed on purpose, and counted apart from the OpenAI side's requests.
                this.backupRequests.incrementAndGet();
                answerMessage(request, out);
                return;
            }
            this.requests.add(request);
            Answer success = success(request, socket, in, out);
            if (success == null) {
                return;
            }
            RateLimit.@Nullable Window window = (this.rateLimit != null) ? this.rateLimit.admit() : null;
            Outcome outcome = (window != null && !window.admitted()) ? Outcome.RATE_LIMITED : nextOutcome();
            if (logger.isInfoEnabled()) {
                logger.info("Embedded provider: request " + this.requests.size() + " (" + success.kind() + ") -> "
                        + outcome + ((window != null) ? " (" + window.remaining() + " of " + window.limit()
                                + " left, reset in " + goDuration(window.resetIn()) + ")" : ""));
            }
            answer(socket, in, out, success, outcome, window);
        }
        catch (IOException ex) {
            // The client went away or the provider is stopping: nobody is left to answer.
        }
    }

    private Outcome nextOutcome() {
        Outcome scripted = this.script.poll();
        if (scripted != null) {
            return scripted;
        }
        return (this.rateLimit != null) ? Outcome.SUCCESS : this.faults.pick(draw());
    }

    private double draw() {
        synchronized (this.random) {
            return this.random.nextDouble();
        }
    }

    /**
     * Returns how a request is answered when it succeeds, or {@code null} once it was answered 404 or 400
     * because it is none the provider serves.
     */
    private @Nullable Answer success(RecordedRequest request, Socket socket, InputStream in, OutputStream out)
            throws IOException {
        boolean post = request.method().equals("POST");
        if (post && request.path().equals(CHAT_COMPLETIONS)) {
            Optional<Completions.Chat> chat = this.completions.readChat(request.body());
            if (this.openAiDown) {
                sendError(out, 503, "Service Unavailable", "The OpenAI side is switched off (sample.provider.openai-down)",
                        "server_error", "overloaded", Map.of(), null);
                return null;
            }
            if (chat.isPresent()) {
                return new Answer(chat.get().stream() ? "stream" : "unary",
                        (delivery, limits) -> sendCompletion(socket, in, out, chat.get(), delivery, limits));
            }
            sendError(out, 400, "Bad Request", "The body must hold a model and a user message",
                    "invalid_request_error", "invalid_body", Map.of(), null);
            return null;
        }
        if (post && request.path().equals(EMBEDDINGS)) {
            Optional<Embeddings.Request> embed = this.embeddings.read(request.body());
            if (embed.isPresent()) {
                return new Answer("embeddings", (delivery, limits) -> sendJson(out, this.embeddings.list(embed.get()), delivery == Delivery.CUT, limits));
            }
            sendError(out, 400, "Bad Request", "The body must hold a model and an input", "invalid_request_error",
                    "invalid_body", Map.of(), null);
            return null;
        }
        sendError(out, 404, "Not Found", "Only POST " + CHAT_COMPLETIONS + ", " + MESSAGES + " and " + EMBEDDINGS + " are served",
                "invalid_request_error", "unknown_url", Map.of(), null);
        return null;
    }

    private void answer(Socket socket, InputStream in, OutputStream out, Answer success, Outcome outcome,
            RateLimit.@Nullable Window window) throws IOException {
        Map<String, String> limits = rateLimitHeaders(window);
        switch (outcome) {
            case SUCCESS -> success.send(Delivery.WHOLE, limits);
            case RATE_LIMITED -> sendError(out, 429, "Too Many Requests", "Rate limit reached (simulated)",
                    "requests", "rate_limit_exceeded", limits, (window != null) ? window.resetIn() : this.retryAfter);
            case QUOTA_EXCEEDED -> sendError(out, 429, "Too Many Requests", "You exceeded your current quota, please "
                    + "check your plan and billing details (simulated)", "insufficient_quota", "insufficient_quota",
                    limits, this.retryAfter);
            case UNAVAILABLE -> sendError(out, 503, "Service Unavailable", "The engine is overloaded (simulated)",
                    "server_error", "overloaded", limits, null);
            case SERVER_ERROR -> sendError(out, 500, "Internal Server Error", "The server had an error (simulated)",
                    "server_error", "internal_error", limits, null);
            case BAD_REQUEST -> sendError(out, 400, "Bad Request", "The request was refused (scripted)",
                    "invalid_request_error", "scripted_bad_request", limits, null);
            case DROP -> {
                // SO_LINGER 0 turns close() into a reset: the client sees "connection reset".
                socket.setSoLinger(true, 0);
                socket.close();
            }
            case CUT -> success.send(Delivery.CUT, limits);
            case SLOW -> {
                if (stillThereAfter(socket, in, this.slowDelay)) {
                    success.send(Delivery.WHOLE, limits);
                }
            }
            case KEEP_ALIVE, STALL_MID_STREAM -> {
                if (success.kind().equals("stream")) {
                    success.send((outcome == Outcome.KEEP_ALIVE) ? Delivery.KEEP_ALIVE : Delivery.STALL, limits);
                }
                else if (stillThereAfter(socket, in, this.slowDelay)) {
                    success.send(Delivery.WHOLE, limits);
                }
            }
            case STALL -> {
                socket.setSoTimeout(0);
                // Answer nothing; return once the client closes the connection or the provider stops.
                while (in.read() >= 0) {
                    // discard whatever the client still sends
                }
            }
        }
    }

    private void sendCompletion(Socket socket, InputStream in, OutputStream out, Completions.Chat chat,
            Delivery delivery, Map<String, String> limits) throws IOException {
        String id = "chatcmpl-" + this.completionIds.incrementAndGet();
        boolean cut = delivery == Delivery.CUT;
        if (!chat.stream()) {
            sendJson(out, this.completions.completion(chat, id), cut, limits);
            return;
        }
        Wire.writeHead(out, 200, "OK", headers(limits, "Content-Type", "text/event-stream", "Cache-Control", "no-cache"));
        sendEvent(out, this.completions.roleChunk(chat, id));
        if (delivery == Delivery.KEEP_ALIVE && !sendKeepAlives(socket, in, out)) {
            return;
        }
        List<String> chunks = chat.chunks();
        for (int i = 0; i < chunks.size(); i++) {
            if (cut && i == CHUNKS_BEFORE_CUT) {
                return;
            }
            if (delivery == Delivery.STALL && i == 1 && !stillThereAfter(socket, in, this.slowDelay)) {
                return;
            }
            sendEvent(out, this.completions.contentChunk(chat, id, chunks.get(i)));
        }
        if (cut) {
            return;
        }
        sendEvent(out, this.completions.finishChunk(chat, id));
        sendEvent(out, "[DONE]");
    }

    private void answerMessage(RecordedRequest request, OutputStream out) throws IOException {
        Optional<Completions.Chat> chat = this.messages.read(request.body());
        if (chat.isEmpty()) {
            sendError(out, 400, "Bad Request", "The body must hold a model and a user message",
                    "invalid_request_error", "invalid_body", Map.of(), null);
            return;
        }
        logger.info("Embedded provider: backup request " + this.backupRequests.get() + " (messages) -> SUCCESS");
        sendMessage(out, chat.get());
    }

    /** Answers a messages request of the Anthropic side, whole or as a stream, never failing. */
    private void sendMessage(OutputStream out, Completions.Chat chat) throws IOException {
        String id = "msg_" + this.completionIds.incrementAndGet();
        if (!chat.stream()) {
            Wire.writeResponse(out, 200, "OK", Map.of(), "application/json", this.messages.message(chat, id));
            return;
        }
        Wire.writeHead(out, 200, "OK", headers(Map.of(), "Content-Type", "text/event-stream", "Cache-Control", "no-cache"));
        sendNamedEvent(out, "message_start", this.messages.start(chat, id));
        sendNamedEvent(out, "content_block_start", this.messages.blockStart());
        for (String chunk : chat.chunks()) {
            sendNamedEvent(out, "content_block_delta", this.messages.delta(chunk));
        }
        sendNamedEvent(out, "content_block_stop", this.messages.blockStop());
        sendNamedEvent(out, "message_delta", this.messages.messageDelta());
        sendNamedEvent(out, "message_stop", this.messages.stop());
    }

    private static void sendNamedEvent(OutputStream out, String name, String data) throws IOException {
        out.write(("event: " + name + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Sends a JSON body whole, or, cut, half of the body its headers announce. */
    private static void sendJson(OutputStream out, byte[] body, boolean cut, Map<String, String> limits)
            throws IOException {
        if (!cut) {
            Wire.writeResponse(out, 200, "OK", limits, "application/json", body);
            return;
        }
        Wire.writeHead(out, 200, "OK", headers(limits, "Content-Type", "application/json", "Content-Length",
                Integer.toString(body.length)));
        out.write(body, 0, body.length / 2);
        out.flush();
    }

    /** Sends SSE comments for the slow delay; false once the client has gone. */
    private boolean sendKeepAlives(Socket socket, InputStream in, OutputStream out) throws IOException {
        long end = System.nanoTime() + this.slowDelay.toNanos();
        for (long left = this.slowDelay.toNanos(); left > 0; left = end - System.nanoTime()) {
            out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            Duration gap = Duration.ofNanos(Math.min(left, KEEP_ALIVE_INTERVAL.toNanos()));
            if (!stillThereAfter(socket, in, gap)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits, reading the connection, for a delay; false as soon as the client closes it, so that an
     * abandoned request is seen as soon as its client lets it go.
     */
    private static boolean stillThereAfter(Socket socket, InputStream in, Duration delay) throws IOException {
        long end = System.nanoTime() + delay.toNanos();
        try {
            for (long left = delay.toNanos(); left > 0; left = end - System.nanoTime()) {
                socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
                if (in.read() < 0) {
                    return false;
                }
            }
        }
        catch (java.net.SocketTimeoutException stillThere) {
            return true;
        }
        return true;
    }

    private static void sendEvent(OutputStream out, String data) throws IOException {
        out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private void sendError(OutputStream out, int status, String reason, String message, String type, String code,
            Map<String, String> limits, @Nullable Duration retryAfter) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>(limits);
        if (retryAfter != null) {
            long millis = Math.max(1, ceilMillis(retryAfter));
            headers.put("Retry-After", Long.toString((millis + 999) / 1000));
            headers.put("retry-after-ms", Long.toString(millis));
        }
        Wire.writeResponse(out, status, reason, headers, "application/json",
                this.completions.error(message, type, code));
    }

    /** OpenAI's headers for the requests limit, with what is left of the request's window. */
    private static Map<String, String> rateLimitHeaders(RateLimit.@Nullable Window window) {
        if (window == null) {
            return Map.of();
        }
        return headers(Map.of(), "x-ratelimit-limit-requests", Integer.toString(window.limit()),
                "x-ratelimit-remaining-requests", Integer.toString(window.remaining()),
                "x-ratelimit-reset-requests", goDuration(window.resetIn()));
    }

    /**
     * Writes a duration as OpenAI writes its resets, Go's way, to the millisecond (rounded up, so that
     * a reset is never early): {@code 850ms}, {@code 1.25s}, {@code 1m30.5s}.
     */
    static String goDuration(Duration duration) {
        long millis = Math.max(1, ceilMillis(duration));
        if (millis < 1000) {
            return millis + "ms";
        }
        String seconds = BigDecimal.valueOf(millis % 60_000, 3).stripTrailingZeros().toPlainString() + "s";
        long minutes = millis / 60_000;
        return (minutes > 0) ? minutes + "m" + seconds : seconds;
    }

    private static long ceilMillis(Duration duration) {
        long nanos = duration.toNanos();
        return nanos / 1_000_000 + ((nanos % 1_000_000 > 0) ? 1 : 0);
    }

    private static Map<String, String> headers(Map<String, String> first, String... namesAndValues) {
        Map<String, String> headers = new LinkedHashMap<>(first);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            headers.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return headers;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        }
        catch (IOException ex) {
            // The connection is gone either way.
        }
    }

    @Override
    public String toString() {
        return "FlakyProvider[" + baseUrl() + ((this.rateLimit != null) ? ", rateLimit=" + this.rateLimit
                : ", faults=" + this.faults) + "]";
    }

    /**
     * How a request that succeeds is answered.
     *
     * @param kind what the request is, for the log: {@code unary}, {@code stream} or {@code embeddings}
     * @param body sends the successful answer, whole or cut
     */
    private record Answer(String kind, Body body) {

        void send(Delivery delivery, Map<String, String> limits) throws IOException {
            this.body.send(delivery, limits);
        }
    }

    /** How a successful answer is delivered. */
    private enum Delivery {
        /** At once and whole. */
        WHOLE,
        /** Cut part-way: see {@link Outcome#CUT}. */
        CUT,
        /** A stream whose content follows keep-alives: see {@link Outcome#KEEP_ALIVE}. */
        KEEP_ALIVE,
        /** A stream that falls silent after its first chunk: see {@link Outcome#STALL_MID_STREAM}. */
        STALL
    }

    /** Sends a successful answer: whole, or cut part-way (see {@link Outcome#CUT}). */
    @FunctionalInterface
    private interface Body {

        void send(Delivery delivery, Map<String, String> limits) throws IOException;
    }
}
