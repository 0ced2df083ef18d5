"""Macros that wrap go_binary and go_test with the repository's defaults."""

load("@io_bazel_rules_go//go:def.bzl", "go_binary", "go_test")
load("@bazel_skylib//lib:paths.bzl", "paths")

DEFAULT_GOOS = ["linux", "darwin"]

_STAMP_KEYS = {
    "main.version": "{STABLE_GIT_VERSION}",
    "main.commit": "{STABLE_GIT_COMMIT}",
}

def _platform_name(name, goos, goarch):
    return "%s_%s_%s" % (name, goos, goarch)

def stamped_binary(name, srcs, deps = [], goos = DEFAULT_GOOS, goarch = "amd64", **kwargs):
    """A go_binary per operating system, stamped with the release version.

    Args:
      name: the base name; each binary is NAME_GOOS_GOARCH.
      srcs: the Go sources.
      deps: the Go libraries it links.
      goos: the operating systems to build for.
      goarch: the architecture.
      **kwargs: passed to go_binary.
    """
    targets = []
    for os in goos:
        target = _platform_name(name, os, goarch)
        go_binary(
            name = target,
            srcs = srcs,
            deps = deps,
            goos = os,
            goarch = goarch,
            pure = "on",
            x_defs = _STAMP_KEYS,
            **kwargs
        )
        targets.append(":" + target)
    native.filegroup(
        name = name,
        srcs = targets,
    )

def table_tests(name, srcs, cases, **kwargs):
    """One go_test per case directory under testdata/."""
    for case in cases:
        go_test(
            name = "%s_%s" % (name, paths.basename(case)),
            srcs = srcs,
            data = native.glob([paths.join(case, "**")]),
            args = ["-case", case],
            **kwargs
        )

def _release_notes_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".md")
    lines = ["# " + ctx.attr.title, ""]
    for dep in ctx.attr.changes:
        lines.append("- " + dep.label.name)
    ctx.actions.write(out, "\n".join(lines) + "\n")
    return [DefaultInfo(files = depset([out]))]

release_notes = rule(
    implementation = _release_notes_impl,
    attrs = {
        "title": attr.string(mandatory = True),
        "changes": attr.label_list(allow_files = True),
    },
)
