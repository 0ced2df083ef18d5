package lang

import "testing"

// TestInjectionFilesSayWhatTheyEmbed: every injection query names a host
// language and starts with the line the README's table shows.
func TestInjectionFilesSayWhatTheyEmbed(t *testing.T) {
	entries, err := injections.ReadDir("injections")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()[:len(e.Name())-len(".scm")]
		l := ByName(name)
		if l == nil {
			t.Errorf("injections/%s: no language %q", e.Name(), name)
			continue
		}
		if l.Embeds() == "" || l.Embeds() == l.InjectionQuery() {
			t.Errorf("injections/%s: no %q line (the first, or the second after \"; extends:\") says what it finds", e.Name(), embedsDirective)
		}
	}
	if ByName("python").Embeds() != "" {
		t.Error("python has no injection query, yet Embeds says something")
	}
}
