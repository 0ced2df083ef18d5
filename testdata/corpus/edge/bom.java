package com.example.legacy;

import java.util.ArrayList;
import java.util.List;

/**
 * Saved with a byte order mark and CRLF line ends by a Windows editor.
 */
public class Greeter {

    private final List<String> names = new ArrayList<>();

    /** Adds a name to greet. */
    public Greeter add(String name) {
        names.add(name);
        return this;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (String name : names) {
            sb.append("Hello, ").append(name).append("!\n");
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        System.out.print(new Greeter().add("Ada").add("Grace"));
    }
}
