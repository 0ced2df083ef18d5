// Build script of the networking module.
plugins {
    kotlin("jvm") version "2.0.21"
    `java-library`
}

group = "org.acme"
version = "1.4.0"

repositories {
    mavenCentral()
}

dependencies {
    implementation("org.jetbrains.kotlinx:kotlinx-coroutines-core:1.9.0")
    testImplementation(kotlin("test"))
    testImplementation("org.jetbrains.kotlinx:kotlinx-coroutines-test:1.9.0")
}

kotlin {
    jvmToolchain(17)
}

tasks.test {
    useJUnitPlatform()
    // Retries sleep: keep the tests fast with a virtual clock, and fail
    // the build if a test takes real time anyway.
    systemProperty("kotlinx.coroutines.test.default_timeout", "10s")
}
