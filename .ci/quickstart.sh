#!/usr/bin/env bash
# The README's quick start, checked: two new applications, built from nothing but the README's snippets
# and the modules of this tree installed in a local Maven repository (`./mvnw install -DskipTests`
# first), start and retry.
# - quickstart: the README's dependency and YAML snippets (between its <!-- quickstart:maven --> and
#   <!-- quickstart:yaml --> markers), spring-boot-starter, the actuator and one InferenceClient bean
#   whose provider fails once: it must retry once and count two attempts in inference.retry.attempts;
# - bare: the same without the actuator, so with no Spring AI, Redis or Micrometer on its class path.
# The templates are in .ci/quickstart/. Usage: .ci/quickstart.sh [LOCAL_REPOSITORY], the local
# repository that holds the installed modules (Maven's default when not given); more Maven options
# come from MAVEN_ARGS (such as -o). Exits non-zero when a consumer fails to build, start or retry.
set -euo pipefail
cd "$(dirname "$0")/.."
template=.ci/quickstart

mvn=("$PWD/mvnw" -B -ntp -q)
[ $# -eq 0 ] || mvn+=("-Dmaven.repo.local=$1")

# The fenced block between README.md's <!-- quickstart:$1 --> and <!-- /quickstart:$1 --> markers,
# without its fences.
snippet() {
  local text
  text=$(awk -v from="<!-- quickstart:$1 -->" -v to="<!-- /quickstart:$1 -->" '
    $0 == to { inside = 0 }
    inside && !/^```/ { print }
    $0 == from { inside = 1 }' README.md)
  if [ -z "$text" ]; then
    echo "README.md has no block between <!-- quickstart:$1 --> and <!-- /quickstart:$1 -->" >&2
    exit 1
  fi
  printf '%s\n' "$text"
}
dependency=$(snippet maven)
yaml=$(snippet yaml)

# The snippet must name the version this tree builds; the consumers use its Spring Boot version.
version=$(sed -n '/<artifactId>inference-retry-parent<\/artifactId>/{n;s#.*<version>\([^<]*\)</version>.*#\1#p;}' pom.xml)
boot=$(sed -n '/<parent>/,/<\/parent>/ s#.*<version>\([^<]*\)</version>.*#\1#p' pom.xml)
if ! grep -q "<version>$version</version>" <<<"$dependency"; then
  echo "README.md's dependency snippet does not name the version this tree builds, $version" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# consumer NAME MAIN_CLASS METERED: generates the consumer NAME from the templates, builds and runs it.
consumer() {
  local dir=$work/$1
  mkdir -p "$dir/src/main/java/example" "$dir/src/main/resources"
  DEPENDENCY=$dependency awk -v boot="$boot" -v name="$1" -v main="example.$2" -v metered="$3" '
    /<!-- README.md: quickstart:maven -->/ { print ENVIRON["DEPENDENCY"]; next }
    /<!-- metered -->/ { skip = (metered != "yes"); next }
    /<!-- \/metered -->/ { skip = 0; next }
    skip { next }
    { gsub(/@spring-boot\.version@/, boot); gsub(/@artifactId@/, name); gsub(/@start-class@/, main); print }
  ' "$template/pom.xml" >"$dir/pom.xml"
  cp "$template/FlakyClient.java" "$template/$2.java" "$dir/src/main/java/example/"
  printf '%s\n' "$yaml" >"$dir/src/main/resources/application.yml"
  echo "-- $1: building against dev.inference:retry-spring-boot-starter:$version, Spring Boot $boot"
  "${mvn[@]}" -f "$dir/pom.xml" package
  echo "-- $1: running"
  java -jar "$dir/target/$1-1.jar"
}

consumer quickstart QuickstartApplication yes
consumer bare BareApplication no
echo "-- The quick start works: both consumers started and retried"
