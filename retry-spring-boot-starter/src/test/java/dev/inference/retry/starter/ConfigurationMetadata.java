package dev.inference.retry.starter;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;

/**
 * The configuration properties that the metadata on the class path describes (each jar's
 * {@code META-INF/spring-configuration-metadata.json}, written by {@code spring-boot-configuration-processor},
 * and {@code additional-spring-configuration-metadata.json}), read with Spring Boot's own reader, as IDEs
 * read them.
 *
 * <p>The trap is maps: the metadata names {@code inference.retry.clients} but none of the properties under
 * its entries, so a name below a map property is resolved through the JavaBean properties of the map's
 * value type, as Spring Boot binds it.
 */
final class ConfigurationMetadata {

    private static final String[] RESOURCES = { "META-INF/spring-configuration-metadata.json",
            "META-INF/additional-spring-configuration-metadata.json" };

    private static final String MAP_OF_STRING = "java.util.Map<java.lang.String,";

    private final ConfigurationMetadataRepository repository;

    private ConfigurationMetadata(ConfigurationMetadataRepository repository) {
        this.repository = repository;
    }

    static ConfigurationMetadata onClassPath() throws IOException {
        ClassLoader classLoader = ConfigurationMetadata.class.getClassLoader();
        ConfigurationMetadataRepositoryJsonBuilder builder = ConfigurationMetadataRepositoryJsonBuilder.create();
        for (String resource : RESOURCES) {
            for (URL url : Collections.list(classLoader.getResources(resource))) {
                try (InputStream in = url.openStream()) {
                    builder.withJsonResource(in);
                }
            }
        }
        return new ConfigurationMetadata(builder.build());
    }

    /**
     * Whether {@code name} is a property, a group of properties, an entry of a map property or a property
     * of such an entry; a name ending in {@code .*} stands for any name below it. A map's key may be
     * written as a placeholder, such as {@code <bean-name>}.
     */
    boolean knows(String name) {
        if (name.endsWith(".*")) {
            String prefix = name.substring(0, name.length() - 1);
            return this.repository.getAllProperties().keySet().stream().anyMatch((id) -> id.startsWith(prefix))
                    || isBelowAMap(prefix.substring(0, prefix.length() - 1));
        }
        return this.repository.getAllProperties().containsKey(name)
                || this.repository.getAllGroups().containsKey(name) || isBelowAMap(name);
    }

    private boolean isBelowAMap(String name) {
        for (ConfigurationMetadataProperty property : this.repository.getAllProperties().values()) {
            String type = property.getType();
            if (type == null || !type.startsWith(MAP_OF_STRING) || !name.startsWith(property.getId() + ".")) {
                continue;
            }
            List<String> belowKey = Arrays.stream(name.substring(property.getId().length() + 1).split("\\."))
                .skip(1)
                .toList();
            String valueType = type.substring(MAP_OF_STRING.length(), type.length() - 1);
            if (belowKey.isEmpty() || hasBeanProperty(valueType, belowKey)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasBeanProperty(String typeName, List<String> path) {
        try {
            return hasBeanProperty(Class.forName(typeName, false, ConfigurationMetadata.class.getClassLoader()), path);
        }
        catch (ClassNotFoundException | LinkageError ex) {
            return false;
        }
    }

    private static boolean hasBeanProperty(Class<?> type, List<String> path) {
        if (path.isEmpty() || path.equals(List.of("*"))) {
            return true;
        }
        if (Map.class.isAssignableFrom(type)) {
            // A map of values below a map entry, such as a chain's models.<member>: one key more.
            return path.size() == 1;
        }
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() != null && !descriptor.getName().equals("class")
                    && DataObjectPropertyName.toDashedForm(descriptor.getName()).equals(path.get(0))) {
                return hasBeanProperty(descriptor.getPropertyType(), path.subList(1, path.size()));
            }
        }
        return false;
    }
}
