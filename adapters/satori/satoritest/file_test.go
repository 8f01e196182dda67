package satoritest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestFiles(t *testing.T) {
	s := NewServer(Options{})
	defer s.Close()
	resp, err := http.Post(s.URL()+"/_control/files?name=a.txt&type=text/plain", "application/octet-stream", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	var added struct{ URL string }
	err = json.NewDecoder(resp.Body).Decode(&added)
	resp.Body.Close()
	if err != nil || added.URL != s.FileURL("a.txt") {
		t.Fatalf("added %+v, %v", added, err)
	}
	s.AddFile(File{Name: "raw", Data: []byte("<html>"), NoLength: true})
	get := func(name string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.FileURL(name), nil)
		req.Header.Set("Authorization", "Bearer x")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	if code, typ, body := get("a.txt"); code != 200 || typ != "text/plain" || body != "hello" {
		t.Errorf("a.txt = %d %q %q", code, typ, body)
	}
	if code, typ, body := get("raw"); code != 200 || typ != "" || body != "<html>" {
		t.Errorf("raw = %d %q %q, want no type sniffed", code, typ, body)
	}
	if code, _, _ := get("missing"); code != http.StatusNotFound {
		t.Errorf("missing = %d", code)
	}
	if s.FileRequests("a.txt") != 1 || s.FileRequests("missing") != 1 || s.FileRequests("never") != 0 {
		t.Errorf("requests a.txt %d, missing %d", s.FileRequests("a.txt"), s.FileRequests("missing"))
	}
	if auth := s.FileAuth("a.txt"); len(auth) != 1 || auth[0] != "Bearer x" {
		t.Errorf("auth = %q", auth)
	}
}
