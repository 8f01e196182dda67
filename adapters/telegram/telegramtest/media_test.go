package telegramtest

import "testing"

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
