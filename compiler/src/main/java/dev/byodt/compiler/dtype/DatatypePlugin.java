package dev.byodt.compiler.dtype;

/**
 * A set of datatypes, registered through {@link java.util.ServiceLoader}: list the implementing class in
 * META-INF/services/dev.byodt.compiler.dtype.DatatypePlugin of a jar. byodt's own datatypes are plug-ins
 * of exactly this kind (see META-INF/services in byodt's compiler module), so each is an example to copy.
 */
public interface DatatypePlugin {
    void registerWith(DatatypeRegistry registry);
}
