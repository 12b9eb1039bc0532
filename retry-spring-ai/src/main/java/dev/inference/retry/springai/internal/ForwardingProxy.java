package dev.inference.retry.springai.internal;

import java.lang.ref.Reference;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

    /** The method by which a Stainless SDK's client or service hands out a copy with other options. */
    private static final String WITH_OPTIONS = "withOptions";

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

    /**
     * Makes a proxy of an SDK client whose views along a path are proxies too, down to the service whose
     * stream method a handler takes: for a stream's exchange to be ended when the stream is closed, which
     * the SDKs offer no hook for. At every level, the {@code withOptions} copies are wrapped alike, and
     * each view is wrapped once ({@link #wrappingResults}); every other call reaches the client.
     *
     * @param <C> the SDK's asynchronous client interface
     * @param path the views from the client to the stream method
     * @param client the client
     * @param name what the proxies' {@code toString()} says they are
     * @param handler starts a stream in place of the service's own stream method
     * @return the proxy
     */
    @SuppressWarnings("unchecked")
    public static <C> C along(ViewPath<C> path, C client, String name, StreamHandler handler) {
        return (C) alongFrom(path, 0, client, name, handler);
    }

    @SuppressWarnings("unchecked")
    private static Object alongFrom(ViewPath<?> path, int level, Object target, String name, StreamHandler handler) {
        boolean last = level == path.views().size();
        Function<Object, Object> sameLevel = (view) -> alongFrom(path, level, view, name, handler);
        Interception views = wrappingResults(target, last ? Map.of(WITH_OPTIONS, sameLevel)
                : Map.of(WITH_OPTIONS, sameLevel, path.views().get(level).method(),
                        (view) -> alongFrom(path, level + 1, view, name, handler)));
        if (last) {
            views = views.orElse((method, args) -> (method.getName().equals(path.streamMethod()) && !method.isDefault()
                    && method.getParameterTypes()[0] == path.parametersType())
                            ? Optional.of(handler.start(target, Objects.requireNonNull(args))) : Optional.empty());
        }
        Class<Object> type = (Class<Object>) ((level == 0) ? path.clientType() : path.views().get(level - 1).type());
        return of(type, target, name, views);
    }

    /**
     * The path from an SDK's asynchronous client to the method that starts a stream.
     *
     * @param <C> the SDK's asynchronous client interface
     * @param clientType that interface
     * @param views the views to follow from the client, in order
     * @param streamMethod the name of the last view's method that starts a stream
     * @param parametersType the type of its first parameter, which tells it from its overloads
     */
    public record ViewPath<C>(Class<C> clientType, List<View> views, String streamMethod, Class<?> parametersType) {

        /**
         * Names a path.
         *
         * @param clientType the SDK's asynchronous client interface
         * @param views the views to follow from the client, in order
         * @param streamMethod the name of the last view's method that starts a stream
         * @param parametersType the type of its first parameter
         */
        public ViewPath {
            views = List.copyOf(views);
        }
    }

    /**
     * A view an SDK's client or service hands out: a method without arguments, made once on first use.
     *
     * @param method the method's name
     * @param type the interface it returns
     */
    public record View(String method, Class<?> type) {
    }

    /** Starts a stream in place of a service's own stream method. */
    @FunctionalInterface
    public interface StreamHandler {

        /**
         * Starts the stream.
         *
         * @param service the service whose stream method was called, which the handler calls in turn
         * @param args the call's arguments
         * @return what the stream method returns
         */
        Object start(Object service, Object[] args);
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
