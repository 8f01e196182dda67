package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestPhotoAnnouncesTwoSizes(t *testing.T) {
	s := NewServer(Options{})
	u := User{ID: 5, FirstName: "Ann"}
	first := s.Post(Incoming{From: u, Media: "photo"})
	second := s.Post(Incoming{From: u, Media: "photo"})
	same := s.Post(Incoming{From: u, Media: "photo", FileID: "cat", UniqueID: "cat-u"})
	again := s.Post(Incoming{From: u, Media: "photo", FileID: "cat", UniqueID: "cat-u"})

	sizes := func(m Message) []map[string]any {
		t.Helper()
		ps, ok := m.Photo.([]map[string]any)
		if !ok || len(ps) != 2 {
			t.Fatalf("photo = %#v, want two sizes", m.Photo)
		}
		return ps
	}
	p1, p2 := sizes(first), sizes(second)
	if p1[0]["width"].(int) >= p1[1]["width"].(int) {
		t.Errorf("sizes not smallest first: %v", p1)
	}
	if p1[1]["file_id"] == p2[1]["file_id"] || p1[1]["file_unique_id"] == p2[1]["file_unique_id"] {
		t.Errorf("two photos share ids: %v and %v", p1[1], p2[1])
	}
	s1, s2 := sizes(same), sizes(again)
	if s1[1]["file_id"] != "cat" || s2[1]["file_id"] != "cat" || s2[1]["file_unique_id"] != "cat-u" {
		t.Errorf("overridden ids not used: %v, %v", s1[1], s2[1])
	}
	if n := p1[1]["file_size"].(int64); n <= 0 {
		t.Errorf("file_size %d, want the stand-in's size", n)
	}
}

func TestGetFileAndDownload(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	u := User{ID: 5, FirstName: "Ann"}
	s.Post(Incoming{From: u, Media: "document", FileName: "a.txt", File: []byte("hello"), FileID: "doc"})
	s.Post(Incoming{From: u, Media: "document", FileName: "big.iso", FileSize: MaxDownloadBytes + 1, FileID: "big"})

	call := func(token, fileID string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(s.URL()+"/bot"+token+"/getFile", "application/json", strings.NewReader(`{"file_id":"`+fileID+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	code, out := call(s.Token(), "doc")
	res, _ := out["result"].(map[string]any)
	if code != http.StatusOK || res["file_id"] != "doc" || res["file_unique_id"] != "u-doc" || res["file_size"] != float64(5) {
		t.Fatalf("getFile = %d %v", code, out)
	}
	path, _ := res["file_path"].(string)
	get := func(token string) (int, string) {
		t.Helper()
		resp, err := http.Get(s.URL() + "/file/bot" + token + "/" + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(s.Token()); code != http.StatusOK || body != "hello" {
		t.Errorf("download = %d %q", code, body)
	}
	if code, _ := get("1:wrong"); code != http.StatusUnauthorized {
		t.Errorf("download with a wrong token = %d, want 401", code)
	}
	if code, out := call(s.Token(), "big"); code != http.StatusBadRequest || out["description"] != "Bad Request: file is too big" {
		t.Errorf("getFile of a file over 20 MB = %d %v", code, out)
	}
	if code, _ := call(s.Token(), "nope"); code != http.StatusBadRequest {
		t.Errorf("getFile of an unknown id = %d, want 400", code)
	}
	if g, d := s.GetFileCalls("doc"), s.Downloads("doc"); g != 1 || d != 1 {
		t.Errorf("doc: getFile %d, downloads %d; want 1 and 1 (a refused token does not count)", g, d)
	}
	if g, d := s.GetFileCalls("big"), s.Downloads("big"); g != 1 || d != 0 {
		t.Errorf("big: getFile %d, downloads %d; want 1 and 0", g, d)
	}
	if f := s.Files()["doc"]; f.Downloads != 1 || f.Size != 5 {
		t.Errorf("Files()[doc] = %+v", f)
	}
}

func TestControlMediaMessage(t *testing.T) {
	s := Start(Options{})
	defer s.Close()
	raw, _ := json.Marshal(ControlMessage{Media: "voice", File: []byte("OggS"), FileID: "vc", Duration: 9, Caption: "listen"})
	resp, err := http.Post(s.URL()+"/_control/message", "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("control message answered %s", resp.Status)
	}
	a := call(t, context.Background(), s.URL(), s.Token(), "getUpdates", nil)
	var us []struct {
		Message struct {
			Caption string `json:"caption"`
			Voice   struct {
				FileID   string `json:"file_id"`
				Duration int    `json:"duration"`
				Size     int64  `json:"file_size"`
			} `json:"voice"`
		} `json:"message"`
	}
	if err := json.Unmarshal(a.Result, &us); err != nil || len(us) != 1 {
		t.Fatalf("updates %s, %v", a.Result, err)
	}
	if v := us[0].Message.Voice; v.FileID != "vc" || v.Duration != 9 || v.Size != 4 || us[0].Message.Caption != "listen" {
		t.Fatalf("voice message %+v", us[0].Message)
	}
	resp, err = http.Get(s.URL() + "/_control/files")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var files map[string]FileCounts
	if err := json.NewDecoder(resp.Body).Decode(&files); err != nil || files["vc"].Size != 4 || files["vc"].UniqueID != "u-vc" {
		t.Fatalf("files %+v, %v", files, err)
	}
}
