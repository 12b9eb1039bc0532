package dev.inference.retry.springai.internal;

import java.lang.ref.Reference;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * JDK proxies of a provider SDK's interfaces that forward every call to a target, except the calls an
 * {@link Interception} takes. Used where this module changes one method of an SDK object it does not
 * own (a client's stream call, a response's body), so that the methods the SDK adds later still reach
 * the target.
 *
 * <p>A default method of the interface runs on the proxy itself, so that what it calls is intercepted
 * too. {@code equals} and {@code hashCode} are the proxy's identity. What the target throws is rethrown
 * as it was.
 */
public final class ForwardingProxy {

    private ForwardingProxy() {
    }

    /**
     * Makes a proxy.
     *
     * @param <T> the interface
     * @param type the interface, which the proxy implements alone
     * @param target the object every call not intercepted goes to
     * @param name what the proxy's {@code toString()} says it is, followed by the target in brackets
     * @param interception which calls the proxy handles itself
     * @return the proxy
     */
    @SuppressWarnings("unchecked")
    public static <T> T of(Class<T> type, T target, String name, Interception interception) {
        return (T) Proxy.newProxyInstance(ForwardingProxy.class.getClassLoader(), new Class<?>[] { type },
                new Forwarding(target, name, interception));
    }

    /**
     * Makes a proxy that forwards every call to a target, and keeps another object reachable for as long
     * as the proxy is: for a target that shares resources with an object whose cleaner releases them
     * once it is unreachable (as the SDKs close their transport once the wrapper they put around it is).
     *
     * @param <T> the interface
     * @param type the interface, which the proxy implements alone
     * @param target the object every call goes to
     * @param reachable the object to keep reachable
     * @return the proxy
     */
    public static <T> T keepingReachable(Class<T> type, T target, Object reachable) {
        return of(type, target, "KeepingReachable[" + reachable + "]", (method, args) -> {
            Reference.reachabilityFence(reachable);
            return Optional.empty();
        });
    }

    /**
     * Tells whether an object is a proxy made by {@link #of}.
     *
     * @param candidate the object
     * @return {@code true} for such a proxy
     */
    public static boolean isProxy(Object candidate) {
        return Proxy.isProxyClass(candidate.getClass()) && Proxy.getInvocationHandler(candidate) instanceof Forwarding;
    }

    /**
     * Calls a method of the target, rethrowing what it throws as it was.
     *
     * @param target the object to call
     * @param method the method
     * @param args the arguments, or {@code null} for none
     * @return what the method returned
     */
    public static Object invoke(Object target, Method method, @Nullable Object[] args) {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            Throwable thrown = ex.getCause();
            if (thrown instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (thrown instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException("The provider client threw a checked exception", thrown);
        }
        catch (IllegalAccessException ex) {
            throw new IllegalStateException("Cannot call " + method + " of the provider client", ex);
        }
    }

    /**
     * Returns an interception that calls the target for some methods and passes what they return
     * through a function: for the views an SDK client hands out (a service, or a copy of itself with
     * other options) to be wrapped in turn. Default methods are not taken: they run on the proxy and
     * reach these methods through it.
     *
     * <p>A method without arguments that returns the same object as on its last call (as the SDKs hand
     * out each service: made once, on first use) returns the same wrapper, made once: a stream call
     * that goes through two views wraps none of them again. Any other result is wrapped on each call.
     *
     * @param target the object the proxy forwards to
     * @param wrappers the function for each method name, given what the target returned
     * @return the interception
     */
    public static Interception wrappingResults(Object target, Map<String, Function<Object, Object>> wrappers) {
        Map<Method, Wrapped> lastWrapped = new ConcurrentHashMap<>();
        return (method, args) -> {
            Function<Object, Object> wrapper = wrappers.get(method.getName());
            if (wrapper == null || method.isDefault()) {
                return Optional.empty();
            }
            Object result = invoke(target, method, args);
            if (method.getParameterCount() != 0) {
                return Optional.of(wrapper.apply(result));
            }
            Wrapped last = lastWrapped.get(method);
            if (last == null || last.result() != result) {
                last = new Wrapped(result, wrapper.apply(result));
                lastWrapped.put(method, last);
            }
            return Optional.of(last.wrapper());
        };
    }

    /** What a method without arguments returned last, and its wrapper. */
    private record Wrapped(Object result, Object wrapper) {
    }

    /** Decides whether a proxy handles a method itself: a result, or empty to forward the call. */
    @FunctionalInterface
    public interface Interception {

        /**
         * Handles a call, or not.
         *
         * @param method the interface method called
         * @param args its arguments, or {@code null} for none
         * @return the result to return, or empty to forward the call to the target
         */
        Optional<Object> intercept(Method method, @Nullable Object[] args);

        /**
         * Returns an interception that tries this one, then the other.
         *
         * @param other the interception for the calls this one does not take
         * @return the combined interception
         */
        default Interception orElse(Interception other) {
            return (method, args) -> {
                Optional<Object> result = intercept(method, args);
                return result.isPresent() ? result : other.intercept(method, args);
            };
        }
    }

    /** Forwards every call to the target, except those the interception takes. */
    private static final class Forwarding implements InvocationHandler {

        private final Object target;

        private final String name;

        private final Interception interception;

        Forwarding(Object target, String name, Interception interception) {
            this.target = target;
            this.name = name;
            this.interception = interception;
        }

        @Override
        public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "toString" -> this.name + "[" + this.target + "]";
                    default -> ForwardingProxy.invoke(this.target, method, args);
                };
            }
            Optional<Object> intercepted = this.interception.intercept(method, args);
            if (intercepted.isPresent()) {
                return intercepted.get();
            }
            if (method.isDefault()) {
                return InvocationHandler.invokeDefault(proxy, method, args);
            }
            return ForwardingProxy.invoke(this.target, method, args);
        }
    }
}
