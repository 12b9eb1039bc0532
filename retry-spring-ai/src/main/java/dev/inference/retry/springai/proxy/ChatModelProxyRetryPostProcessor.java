package dev.inference.retry.springai.proxy;

import dev.inference.retry.Retrier;
import dev.inference.retry.springai.ChatModelFailureTranslator;
import dev.inference.retry.springai.ModelNotRetriableException;
import dev.inference.retry.springai.ModelRetriers;
import dev.inference.retry.springai.internal.SpringAiInternals;
import dev.inference.retry.springai.support.SpringAiProvider;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.SmartInstantiationAwareBeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.core.SmartClassLoader;
import org.springframework.util.ClassUtils;

/**
 * Retries the calls of every chat model bean of an application's own class (no provider retries it
 * beneath the bean, see {@link SpringAiProvider#retriedBeneath()}) that {@link ModelRetriers} gives
 * a retrier, above its HTTP exchange: the bean becomes a proxy of its own class whose
 * {@link RetryingChatModelInterceptor} retries {@code call} and {@code stream}. A Spring AOP proxy
 * already made that is not frozen gets the interceptor added to its advice instead.
 *
 * <p>Refused at startup with a {@link ModelNotRetriableException} naming the bean and the fix: a chat
 * model class of Spring AI's own ({@code org.springframework.ai.}) that no provider retries beneath the
 * bean, such as Mistral's, DeepSeek's or Bedrock's, since a proxy would retry it blind (its client's
 * exceptions unknown, its client's own retries beneath); a class that cannot be subclassed (it, or a
 * {@code call} or {@code stream} method of it, is final); and a model that holds a Spring
 * {@code RetryTemplate}, since it retries each exchange itself and a retry above it would multiply the
 * attempts. Left alone: beans with no retrier, scoped targets, beans already retried.
 *
 * <p>Traps: it runs just after the providers' post-processors, so that it sees the model rather than a
 * proxy of it. For Spring AOT it names the proxy class at build time ({@link #determineBeanType}), so
 * that the class and its hints are generated and a native image can make the proxy.
 */
public final class ChatModelProxyRetryPostProcessor
        implements SmartInstantiationAwareBeanPostProcessor, BeanClassLoaderAware, Ordered {

    /** Just after the post-processors of the classes retried beneath the bean. */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1;

    /** The package of Spring AI's own classes. */
    private static final String SPRING_AI = "org.springframework.ai.";

    private final ObjectProvider<ModelRetriers> retriers;

    private final ObjectProvider<ChatModelFailureTranslator> translators;

    private final List<SpringAiProvider> providers;

    /** The classes of {@link #providers} retried beneath the bean, by name. */
    private final Set<String> retriedBeneath;

    private @Nullable ClassLoader classLoader = ClassUtils.getDefaultClassLoader();

    /**
     * Creates the post-processor.
     *
     * @param retriers the retriers of the beans
     * @param translators the application's failure translators, asked before the built-in ones
     * @param providers the providers whose model classes are retried beneath the bean, and whose
     *     libraries bring built-in failure translators
     */
    public ChatModelProxyRetryPostProcessor(ObjectProvider<ModelRetriers> retriers,
            ObjectProvider<ChatModelFailureTranslator> translators, List<SpringAiProvider> providers) {
        this.retriers = retriers;
        this.translators = translators;
        this.providers = List.copyOf(providers);
        this.retriedBeneath = this.providers.stream()
            .flatMap((provider) -> provider.retriedBeneath().stream())
            .collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public Class<?> determineBeanType(Class<?> beanClass, String beanName) {
        if (!ChatModel.class.isAssignableFrom(beanClass) || beanClass.isInterface()
                || Modifier.isAbstract(beanClass.getModifiers()) || ScopedProxyUtils.isScopedTarget(beanName)
                || isRetriedBeneath(beanClass) || refusal(beanClass) != null) {
            return beanClass;
        }
        ProxyFactory factory = new ProxyFactory();
        factory.setProxyTargetClass(true);
        factory.setTargetClass(beanClass);
        // The proxy's class does not depend on its advice, which exists only at run time: a stand-in will do.
        factory.addAdvisor(new DefaultPointcutAdvisor(RetryingChatModelInterceptor.CHAT_METHODS,
                (MethodInterceptor) MethodInvocation::proceed));
        return factory.getProxyClass(proxyClassLoader(beanClass));
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof ChatModel) || ScopedProxyUtils.isScopedTarget(beanName)
                || isRetriedBeneath(AopUtils.getTargetClass(bean)) || isRetried(bean)) {
            return bean;
        }
        Optional<Retrier> retrier = this.retriers.getObject().retrierFor(beanName);
        if (retrier.isEmpty()) {
            return bean;
        }
        Advisor advisor = new DefaultPointcutAdvisor(RetryingChatModelInterceptor.CHAT_METHODS,
                new RetryingChatModelInterceptor(retrier.get(), ChatModelFailureTranslators
                    .of(this.translators.orderedStream().toList(), this.providers, this.classLoader)));
        if (bean instanceof Advised advised && !advised.isFrozen()) {
            // A proxy already made (a scoped proxy, say) is refused as the bean itself would be: by its target's
            // class. Through an interface proxy, the target's final methods do not keep the advice from running.
            Class<?> target = AopUtils.getTargetClass(bean);
            String refusal = advised.isProxyTargetClass() ? refusal(target) : interfaceProxyRefusal(target);
            if (refusal != null) {
                throw ModelNotRetriableException.chatModel(beanName, refusal, null);
            }
            advised.addAdvisor(advisor);
            return bean;
        }
        Class<?> type = ClassUtils.getUserClass(bean);
        String refusal = refusal(type);
        if (refusal != null) {
            throw ModelNotRetriableException.chatModel(beanName, refusal, null);
        }
        try {
            ProxyFactory factory = new ProxyFactory(bean);
            factory.setProxyTargetClass(true);
            factory.addAdvisor(advisor);
            return factory.getProxy(proxyClassLoader(type));
        }
        catch (RuntimeException ex) {
            throw ModelNotRetriableException.chatModel(beanName, "no proxy of its class " + type.getName()
                    + " could be made to retry its calls above its HTTP exchange", ex);
        }
    }

    /** Whether beans of a class, or of a subclass of theirs, are retried beneath the bean. */
    private boolean isRetriedBeneath(Class<?> type) {
        for (Class<?> each = type; each != null; each = each.getSuperclass()) {
            if (this.retriedBeneath.contains(each.getName())) {
                return true;
            }
        }
        return false;
    }

    /** Why no proxy of a class can retry its calls, or {@code null} when one can. */
    private @Nullable String refusal(Class<?> type) {
        String springAi = springAiRefusal(type);
        if (springAi != null) {
            return springAi;
        }
        String beneath = ", so no proxy of its class can retry its calls, and this module retries beneath the bean "
                + "only the exchanges of Spring AI's " + chatModelsRetriedBeneath() + ": ";
        if (Modifier.isFinal(type.getModifiers())) {
            return "its class " + type.getName() + " is final" + beneath + "make the class non-final to have it retried";
        }
        Optional<Method> finalMethod = Arrays.stream(type.getMethods())
            .filter((method) -> Modifier.isFinal(method.getModifiers()) && RetryingChatModelInterceptor.isChatMethod(method))
            .findFirst();
        if (finalMethod.isPresent()) {
            Method method = finalMethod.get();
            return "its method " + method.getDeclaringClass().getName() + "." + method.getName() + "("
                    + String.join(", ", Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toList())
                    + ") is final" + beneath
                    + "make the method non-final to have the bean retried";
        }
        return selfRetryRefusal(type);
    }

    /** Why an interface proxy of a model cannot retry its calls, or {@code null} when it can. */
    private @Nullable String interfaceProxyRefusal(Class<?> type) {
        String springAi = springAiRefusal(type);
        return (springAi != null) ? springAi : selfRetryRefusal(type);
    }

    /**
     * Why a model of a class of Spring AI's own (or of a subclass of one) that no provider retries beneath
     * the bean must not be proxied, or {@code null} when the class is not one. Such a model reaches its
     * provider through a client this module does not know: a proxy would see only what the client throws
     * once its own retries are spent, and no translator would know those exceptions.
     */
    private @Nullable String springAiRefusal(Class<?> type) {
        for (Class<?> each = type; each != null && each != Object.class; each = each.getSuperclass()) {
            if (each.getName().startsWith(SPRING_AI)) {
                String what = (each == type) ? "its class " + type.getName() + " is"
                        : "its class " + type.getName() + " extends " + each.getName() + ",";
                return what + " a chat model of Spring AI's own that no provider integration of this module "
                        + "retries (it retries the exchanges of Spring AI's " + chatModelsRetriedBeneath()
                        + " beneath the bean), and a proxy above it would retry it blind: on exceptions no translator "
                        + "knows, over a client that may retry each exchange itself. Leave it to its own retries";
            }
        }
        return null;
    }

    /** The simple names of the chat model classes on the class path that a provider retries beneath the bean. */
    private String chatModelsRetriedBeneath() {
        return String.join(", ", this.retriedBeneath.stream()
            .filter((name) -> ClassUtils.isPresent(name, this.classLoader)
                    && ChatModel.class.isAssignableFrom(ClassUtils.resolveClassName(name, this.classLoader)))
            .map(ClassUtils::getShortName)
            .sorted()
            .toList());
    }

    /** Why a model of a class must not be retried above its exchanges, as it retries them itself; or {@code null}. */
    private static @Nullable String selfRetryRefusal(Class<?> type) {
        Optional<Field> retryTemplate = SpringAiInternals.retryTemplateField(type);
        if (retryTemplate.isPresent()) {
            Field field = retryTemplate.get();
            return "it retries each exchange itself, with the RetryTemplate in its field "
                    + field.getDeclaringClass().getName() + "." + field.getName() + " (as Spring AI's models on "
                    + "spring-ai-retry do), and a retry above it would multiply the attempts; this module makes that "
                    + "template one attempt only for the models it retries beneath the bean. Keep the model's own "
                    + "retries";
        }
        return null;
    }


    /** Tells whether a bean is already a proxy that retries its calls. */
    private static boolean isRetried(Object bean) {
        return bean instanceof Advised advised && Arrays.stream(advised.getAdvisors())
            .anyMatch((advisor) -> advisor.getAdvice() instanceof RetryingChatModelInterceptor);
    }

    /** The class loader of the bean factory, unless the bean's class was not loaded by it (as Spring's own do). */
    private @Nullable ClassLoader proxyClassLoader(Class<?> type) {
        ClassLoader loader = this.classLoader;
        if (loader instanceof SmartClassLoader smart && loader != type.getClassLoader()) {
            return smart.getOriginalClassLoader();
        }
        return loader;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
