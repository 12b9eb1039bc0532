package dev.inference.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * Calls the running sample app over a real socket, as {@code curl} would.
 */
final class SampleHttp {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final int port;

    SampleHttp(int port) {
        this.port = port;
    }

    HttpResponse<String> get(String pathAndQuery) throws Exception {
        return get(pathAndQuery, "*/*");
    }

    HttpResponse<String> get(String pathAndQuery, String accept) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + pathAndQuery))
                .header("Accept", accept).GET().build();
        return this.http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String json) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
        return this.http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The JSON object of a response body, as maps, lists, strings, numbers and booleans. */
    static Map<String, Object> json(HttpResponse<String> response) {
        return json(response.body());
    }

    /** A JSON object, as maps, lists, strings, numbers and booleans. */
    static Map<String, Object> json(String object) {
        return JSON.readValue(object, new TypeReference<Map<String, Object>>() { });
    }

    /** The value of the single measurement of {@code /actuator/metrics/{name}} with tag filters. */
    double metric(String name, String... tags) throws Exception {
        StringBuilder path = new StringBuilder("/actuator/metrics/" + name);
        for (int i = 0; i < tags.length; i++) {
            path.append((i == 0) ? '?' : '&').append("tag=").append(tags[i]);
        }
        HttpResponse<String> response = get(path.toString());
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body()).path("measurements").path(0).path("value").asDouble();
    }
}
