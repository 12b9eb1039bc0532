package dev.inference.retry.cooldown.redis;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.TestAbortedException;
import org.slf4j.LoggerFactory;

/**
 * One {@link RedisServer} for a test class and its {@code @Nested} classes, registered as a static
 * field with {@code @RegisterExtension}: started before the class's first test, stopped after its
 * last one whatever their outcome. When there is no {@code redis-server}, every test is skipped with
 * {@link RedisServer#start()}'s notice (so that the build's summary counts them), or the class fails
 * when one is required.
 */
final class RedisServerExtension implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    private RedisServer server;

    private TestAbortedException missing;

    private Class<?> owner;

    @Override
    public void beforeAll(ExtensionContext context) {
        if (this.server != null || this.missing != null) {
            return;
        }
        // Without Spring Boot's logging set up, Logback logs everything the Redis client does.
        for (String client : new String[] { "io.lettuce", "io.netty", "reactor" }) {
            ((Logger) LoggerFactory.getLogger(client)).setLevel(Level.INFO);
        }
        this.owner = context.getRequiredTestClass();
        try {
            this.server = RedisServer.start();
        }
        catch (TestAbortedException ex) {
            this.missing = ex;
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (this.missing != null) {
            throw new TestAbortedException(this.missing.getMessage());
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (context.getRequiredTestClass() != this.owner) {
            return;
        }
        this.missing = null;
        if (this.server != null) {
            this.server.close();
            this.server = null;
        }
    }

    RedisServer server() {
        return this.server;
    }
}
