package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The mark of a context whose caller has another model to ask ({@link CallContext#withFallback()}).
 */
class CallContextFallbackTests {

    @Test
    void aNewContextHasNoFallback() {
        assertThat(CallContext.cancellable().hasFallback()).isFalse();
        assertThat(CallContext.background().hasFallback()).isFalse();
    }

    @Test
    void theViewSharesCancellationAndAuthorizer() {
        Authorizer authorizer = () -> Map.of("Authorization", "Bearer test");
        CallContext context = CallContext.cancellable().withAuthorizer(authorizer);
        CallContext view = context.withFallback();

        context.cancel();

        assertThat(view.hasFallback()).isTrue();
        assertThat(view.isDone()).isTrue();
        assertThat(view.authorizer()).isSameAs(authorizer);
        assertThat(context.hasFallback()).isFalse();
    }

    @Test
    void viewsOfTheViewKeepTheMark() {
        CallContext view = CallContext.cancellable().withFallback().withAuthorizer(Authorizer.none());

        assertThat(view.hasFallback()).isTrue();
        assertThat(view.withFallback()).isSameAs(view);
    }
}
