package walk

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// repo is a git work tree found around a walk root.
type repo struct {
	top       string // OS path of the work tree's top directory
	gitDir    string // .git directory (or the one a .git file points to)
	commonDir string // shared part of a worktree's git dir (= gitDir usually)

	configList  []gitConfig // the config files, once read (see configs)
	configsRead bool
}

// findRepo walks up from dir (absolute, symlinks resolved) to the nearest
// directory holding a valid .git, as git's discovery does.
func findRepo(dir string) *repo {
	for {
		if gd, ok := gitDirOf(dir); ok {
			return &repo{top: dir, gitDir: gd, commonDir: commonDirOf(gd)}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// gitDirOf returns the git directory of the work tree dir, if dir/.git is a
// git directory or a "gitdir: <path>" file (worktrees, submodules) pointing
// at one. Like git's is_nonbare_repository_dir, an empty or bogus .git does
// not make a repository.
func gitDirOf(dir string) (string, bool) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return dotGit, isGitDir(dotGit)
	}
	gd, err := readGitFile(dotGit)
	if err != nil {
		return "", false
	}
	return gd, isGitDir(gd)
}

// readGitFile reads a ".git" file ("gitdir: ../.git/modules/x").
func readGitFile(p string) (string, error) {
	data, err := readMeta(p, maxGitFileSize, false)
	if err != nil {
		return "", err
	}
	line := strings.TrimRight(strings.SplitN(string(data), "\n", 2)[0], "\r \t")
	gd, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok || gd == "" {
		return "", errors.New("not a gitdir file")
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(filepath.Dir(p), gd)
	}
	return gd, nil
}

// isGitDir follows git's is_git_directory: HEAD, and objects/ and refs/ in
// the common directory.
func isGitDir(gd string) bool {
	if _, err := os.Lstat(filepath.Join(gd, "HEAD")); err != nil {
		return false
	}
	common := commonDirOf(gd)
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// commonDirOf resolves a linked worktree's "commondir" file; info/exclude
// and the config live there, the index does not. A commondir file that
// cannot be read (git would stop there) is taken as absent.
func commonDirOf(gd string) string {
	data, err := readMeta(filepath.Join(gd, "commondir"), maxGitFileSize, false)
	if err != nil {
		return gd
	}
	c := strings.TrimSpace(string(data))
	if c == "" {
		return gd
	}
	if !filepath.IsAbs(c) {
		c = filepath.Join(gd, c)
	}
	return filepath.Clean(c)
}

// repoIgnoreLists returns info/exclude and the global excludes file, in the
// order git consults them (info/exclude wins over the global file). A file
// that is there but cannot be used gets a note.
func repoIgnoreLists(r *repo, note func(string)) []*ignoreList {
	var lists []*ignoreList
	files := []string{filepath.Join(r.commonDir, "info", "exclude")}
	if p := excludesFile(r, note); p != "" {
		files = append(files, p)
	}
	for _, p := range files {
		l, err := readIgnoreFile(p, "", false)
		if err != nil {
			note(fileNote("ignore file", p, err))
		}
		if l != nil {
			lists = append(lists, l)
		}
	}
	return lists
}

// fileNote is the text of a note about a rules or metadata file that
// could not be used. The file's path is quoted: it is not the warning's
// path, and may hold any byte.
func fileNote(what, p string, err error) string {
	return fmt.Sprintf("%s %q not read: %s", what, p, reason(err))
}

// excludesFile resolves core.excludesFile like git (see configPath); unset
// means $XDG_CONFIG_HOME/git/ignore (or ~/.config/git/ignore).
func excludesFile(r *repo, note func(string)) string {
	return configPath(r, "excludesfile", "ignore", note)
}

// attributesFile resolves core.attributesFile like git (see configPath);
// unset means $XDG_CONFIG_HOME/git/attributes (or
// ~/.config/git/attributes).
func attributesFile(r *repo, note func(string)) string {
	return configPath(r, "attributesfile", "attributes", note)
}

// configPath resolves a core.* path variable like git: the last value set
// in the system, global and repository config files wins; unset means
// $XDG_CONFIG_HOME/git/<xdgName> (or ~/.config/git/<xdgName>); set empty
// means no file; "~/" is expanded and a relative path is relative to the
// top of the work tree. "include" and "includeIf" directives are not
// followed.
func configPath(r *repo, key, xdgName string, note func(string)) string {
	value, set := "", false
	for _, cfg := range r.configs(note) {
		if v, ok := configValue(cfg, "core", key); ok {
			value, set = v, true
		}
	}
	if !set {
		if x := xdgConfigHome(); x != "" {
			return filepath.Join(x, "git", xdgName)
		}
		return ""
	}
	if value == "" {
		return ""
	}
	value = expandTilde(value)
	if !filepath.IsAbs(value) {
		value = filepath.Join(r.top, value)
	}
	return value
}

// configs reads the repository's config files (configFiles), once. A file
// that is there but cannot be read gets a note (the first time) and
// counts as empty.
func (r *repo) configs(note func(string)) []gitConfig {
	if !r.configsRead {
		r.configsRead = true
		for _, cf := range configFiles(r) {
			cfg, err := readConfig(cf)
			if err != nil {
				note(fileNote("git config file", cf, err))
			}
			r.configList = append(r.configList, cfg)
		}
	}
	return r.configList
}

// configFiles lists the config files git reads, lowest precedence first.
func configFiles(r *repo) []string {
	var files []string
	if !envTrue("GIT_CONFIG_NOSYSTEM") {
		sys := os.Getenv("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		files = append(files, sys)
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g)
	} else {
		if x := xdgConfigHome(); x != "" {
			files = append(files, filepath.Join(x, "git", "config"))
		}
		if home := os.Getenv("HOME"); home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	return append(files, filepath.Join(r.commonDir, "config"))
}

// envTrue reads a git boolean environment variable.
func envTrue(name string) bool {
	switch strings.ToLower(os.Getenv(name)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// xdgConfigHome is $XDG_CONFIG_HOME, else ~/.config, else "" (no HOME).
func xdgConfigHome() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	if home := os.Getenv("HOME"); home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// readConfig reads a git config file (see parseConfig). A missing file is
// empty; one that is there but cannot be read is empty and an error. A
// file that does not parse yields what was read before the bad line: git
// would refuse to run, castchunk just does its best.
func readConfig(file string) (gitConfig, error) {
	data, err := readMeta(file, maxRulesSize, false)
	if err != nil {
		if missing(err) {
			err = nil
		}
		return gitConfig{}, err
	}
	cfg, _ := parseConfig(data)
	return cfg, nil
}

// expandTilde expands "~/..." and "~user/..." as git_config_pathname does.
func expandTilde(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	var home string
	if name == "" {
		home = os.Getenv("HOME")
	} else if u, err := user.Lookup(name); err == nil {
		home = u.HomeDir
	}
	if home == "" {
		return p
	}
	return filepath.Join(home, rest)
}

// indexError is the text of the notice given when the index cannot be read.
func indexError(r *repo, err error) string {
	return fmt.Sprintf("cannot read git index %q: %s; ignored files that git tracks are not listed",
		filepath.Join(r.gitDir, "index"), reason(err))
}
