package dev.inference.sample;

import dev.inference.sample.provider.FlakyProvider;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A test that calls the running sample app (a {@link SampleAppTest}) over a real socket: before each
 * test its embedded provider is reset to no script and no recorded requests, and {@link #http} calls
 * the app's port.
 */
abstract class AgainstTheSample {

    @LocalServerPort
    private int port;

    /** The sample's embedded provider, failing only as a test scripts it. */
    @Autowired
    FlakyProvider provider;

    /** Calls the running app, as {@code curl} would. */
    SampleHttp http;

    @BeforeEach
    final void connectToAFreshProvider() {
        this.provider.reset();
        this.http = new SampleHttp(this.port);
    }
}
