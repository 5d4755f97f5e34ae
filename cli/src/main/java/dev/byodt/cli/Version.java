package dev.byodt.cli;

import picocli.CommandLine;

/** byodt's version, from the jar manifest when packaged. */
final class Version implements CommandLine.IVersionProvider {
    static String get() {
        String v = Version.class.getPackage().getImplementationVersion();
        return v == null ? "development build" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"byodt " + get(), "Java " + Runtime.version()};
    }
}
