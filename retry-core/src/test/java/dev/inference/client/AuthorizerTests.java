package dev.inference.client;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AuthorizerTests {

    @Test
    void noneSuppliesNoCredentials() {
        assertThat(Authorizer.none().authorize()).isEmpty();
    }
}
