package lang

import "testing"

// TestPrivacy: each rule hides what its language calls private and keeps
// the rest.
func TestPrivacy(t *testing.T) {
	python := ByName("python").Private
	golang := ByName("go").Private
	java := ByName("java").Private
	csharp := ByName("csharp").Private
	rust := ByName("rust").Private
	ts := ByName("typescript").Private
	tests := []struct {
		rule Privacy
		d    Decl
		want bool
	}{
		{python, Decl{Name: []byte("_helper"), Lead: []byte("def ")}, true},
		{python, Decl{Name: []byte("__init__"), Lead: []byte("def ")}, false},
		{python, Decl{Name: []byte("__secret"), Lead: []byte("def ")}, true},
		{python, Decl{Name: []byte("run")}, false},
		{python, Decl{Lead: []byte("_cache: dict = {}")}, true},
		{python, Decl{Lead: []byte("size: int = 0")}, false},
		{golang, Decl{Name: []byte("Get"), Lead: []byte("func (c *Cache) ")}, false},
		{golang, Decl{Name: []byte("get")}, true},
		{java, Decl{Name: []byte("reset"), Lead: []byte("private static void ")}, true},
		{java, Decl{Name: []byte("size"), Lead: []byte("int ")}, false},
		{java, Decl{Lead: []byte("private final int count = 0;")}, true},
		{java, Decl{Lead: []byte("public static final int MAX = 3;")}, false},
		{csharp, Decl{Name: []byte("Reset"), Lead: []byte("void "), OwnerKind: "class", OwnerName: "Shop"}, true},
		{csharp, Decl{Name: []byte("Add"), Lead: []byte("void "), OwnerKind: "interface", OwnerName: "IShop"}, false},
		{csharp, Decl{Name: []byte("Shop"), Lead: []byte("class ")}, false},
		{csharp, Decl{Name: []byte("Add"), Lead: []byte("public void "), OwnerKind: "class"}, false},
		{rust, Decl{Name: []byte("helper"), Lead: []byte("fn ")}, true},
		{rust, Decl{Name: []byte("new"), Lead: []byte("pub fn "), OwnerKind: "impl", OwnerName: "Point"}, false},
		{rust, Decl{Name: []byte("fmt"), Lead: []byte("fn "), OwnerKind: "impl", OwnerName: "Display for Point"}, false},
		{rust, Decl{Name: []byte("Point"), Lead: []byte("impl "), Kind: "impl"}, false},
		{rust, Decl{Lead: []byte("y: i32"), OwnerKind: "struct"}, true},
		{rust, Decl{Lead: []byte("Red"), OwnerKind: "enum"}, false},
		{ts, Decl{Name: []byte("#secret")}, true},
		{ts, Decl{Lead: []byte("private hidden = 2")}, true},
		{ts, Decl{Lead: []byte("readonly size: number")}, false},
		{Privacy{}, Decl{Name: []byte("_x"), Lead: []byte("private ")}, false},
	}
	for _, tc := range tests {
		if got := tc.rule.Hides(tc.d); got != tc.want {
			t.Errorf("%+v hides name %q lead %q owner %s %s: %v, want %v", tc.rule, tc.d.Name, tc.d.Lead, tc.d.OwnerKind, tc.d.OwnerName, got, tc.want)
		}
	}
}
