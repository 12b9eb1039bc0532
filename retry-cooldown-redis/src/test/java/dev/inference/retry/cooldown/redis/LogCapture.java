package dev.inference.retry.cooldown.redis;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** What {@link RedisCooldownStore}, or the loggers under another name, log while it is open. */
final class LogCapture implements AutoCloseable {

    private final Logger logger;

    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture() {
        this(RedisCooldownStore.class.getName());
    }

    LogCapture(String loggerName) {
        this.logger = (Logger) LoggerFactory.getLogger(loggerName);
        this.appender.start();
        this.logger.addAppender(this.appender);
    }

    List<String> messages(Level level) {
        return List.copyOf(this.appender.list)
            .stream()
            .filter((event) -> event.getLevel() == level)
            .map(ILoggingEvent::getFormattedMessage)
            .toList();
    }

    @Override
    public void close() {
        this.logger.detachAppender(this.appender);
        this.appender.stop();
    }
}
