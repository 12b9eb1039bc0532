package dev.inference.retry.autoconfigure.settings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one fallback chain, under {@code inference.retry.fallbacks.<chain>}: a plain
 * JavaBean for the binder. What the settings mean, and what makes them invalid, is SPEC §12's and
 * {@link dev.inference.retry.autoconfigure.fallback.FallbackChainRegistrar}'s; nothing here is defaulted but {@code primary}.
 */
public class FallbackChainProperties {

    /**
     * Bean names of the chain's members, in the order a call tries them: at least two, all
     * InferenceClient beans or all Spring AI ChatModel beans.
     */
    private List<String> members = new ArrayList<>();

    /**
     * Whether the chain is the primary bean of its type, so that plain injection and Spring AI's
     * ChatClient.Builder get it.
     */
    private boolean primary;

    /**
     * Calls in a row that fell over from a member after which the chain skips that member for
     * skip-for; set with skip-for, or not at all.
     */
    private @Nullable Integer skipAfter;

    /**
     * How long a member is skipped once skip-after calls in a row fell over from it; set with
     * skip-after, or not at all.
     */
    private @Nullable Duration skipFor;

    /**
     * Model name each member is asked for, keyed by the member's bean name; a member without an
     * entry keeps the request's model (InferenceClient) or its own default (ChatModel).
     */
    private final Map<String, String> models = new LinkedHashMap<>();

    /**
     * Returns the members' bean names, in order.
     *
     * @return the names; live, for the binder
     */
    public List<String> getMembers() {
        return this.members;
    }

    /**
     * Sets the members' bean names, in order.
     *
     * @param members the names
     */
    public void setMembers(List<String> members) {
        this.members = members;
    }

    /**
     * Returns whether the chain is the primary bean of its type.
     *
     * @return {@code true} when set so
     */
    public boolean isPrimary() {
        return this.primary;
    }

    /**
     * Sets whether the chain is the primary bean of its type.
     *
     * @param primary {@code true} to mark it {@code @Primary}
     */
    public void setPrimary(boolean primary) {
        this.primary = primary;
    }

    /**
     * Returns the fall-overs in a row after which a member is skipped.
     *
     * @return the number, or {@code null} when not set
     */
    public @Nullable Integer getSkipAfter() {
        return this.skipAfter;
    }

    /**
     * Sets the fall-overs in a row after which a member is skipped.
     *
     * @param skipAfter the number, or {@code null}
     */
    public void setSkipAfter(@Nullable Integer skipAfter) {
        this.skipAfter = skipAfter;
    }

    /**
     * Returns how long a member is skipped.
     *
     * @return the duration, or {@code null} when not set
     */
    public @Nullable Duration getSkipFor() {
        return this.skipFor;
    }

    /**
     * Sets how long a member is skipped.
     *
     * @param skipFor the duration, or {@code null}
     */
    public void setSkipFor(@Nullable Duration skipFor) {
        this.skipFor = skipFor;
    }

    /**
     * Returns each member's own model name, keyed by bean name.
     *
     * @return the names; live, for the binder
     */
    public Map<String, String> getModels() {
        return this.models;
    }
}
