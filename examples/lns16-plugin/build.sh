#!/usr/bin/env bash
# Builds lns16-plugin.jar (in the current folder) from Lns16Plugin.java, its service file and ../lns16/lns16.c,
# against the byodt-compiler jar that scripts/byodt builds. Needs a JDK 25 (JAVA_HOME, PATH or /usr/lib/jvm).
# (With byodt-compiler in your local Maven repository, `mvn -f examples/lns16-plugin/pom.xml package` does the same.)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
api="$root/cli/target/lib/byodt-compiler-0.1.0-SNAPSHOT.jar"
[ -f "$api" ] || { echo "build.sh: $api is missing: run scripts/byodt once to build byodt" >&2; exit 2; }

jdk=""
for dir in "${JAVA_HOME:-}" "$(dirname "$(dirname "$(command -v javac 2>/dev/null || echo /x/x)")")" /usr/lib/jvm/*; do
  if [ -x "$dir/bin/javac" ] && [ "$("$dir/bin/javac" --version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p')" -ge 25 ] 2>/dev/null; then
    jdk=$dir
    break
  fi
done
[ -n "$jdk" ] || { echo "build.sh: needs a JDK 25 or newer (javac); set JAVA_HOME" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$jdk/bin/javac" --release 25 -cp "$api" -d "$work" "$here"/src/main/java/dev/byodt/examples/lns16/Lns16Plugin.java
cp -r "$here/src/main/resources/META-INF" "$work/"
mkdir -p "$work/lns16"
cp "$root/examples/lns16/lns16.c" "$work/lns16/"
"$jdk/bin/jar" --create --file lns16-plugin.jar -C "$work" .
echo "wrote lns16-plugin.jar"
