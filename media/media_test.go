package media_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/media"
	"github.com/airi-go/airi/scheduler/budget"
	"github.com/airi-go/airi/state"
	"github.com/airi-go/airi/state/sqlite"
)

// files serves fixed bytes by file id and counts the fetches.
type files struct {
	mu      sync.Mutex
	data    map[string][]byte
	fetches map[string]int
	err     error
}

func (f *files) FetchMedia(_ context.Context, m state.Media, thumb bool, max int64) ([]byte, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := m.FileID
	if thumb {
		id = m.Thumb
	}
	f.fetches[id]++
	if f.err != nil {
		return nil, "", f.err
	}
	b, ok := f.data[id]
	if !ok {
		return nil, "", errors.New("no such file")
	}
	if int64(len(b)) > max {
		return nil, "", &adapters.TooLargeError{Size: int64(len(b)), Limit: max}
	}
	return b, "", nil
}

// eyes describes images as "an image of <bytes>" and counts the calls.
type eyes struct {
	calls int
	err   error
}

func (e *eyes) Describe(_ context.Context, img state.Image, kind string) (string, int64, error) {
	e.calls++
	if e.err != nil {
		return "", 0, e.err
	}
	return "an image of " + string(img.Data) + "\n(" + kind + ")", 100, nil
}

type ears struct{ calls int }

func (e *ears) Transcribe(_ context.Context, audio []byte, name string) (string, error) {
	e.calls++
	return "I said " + string(audio) + ` "twice"`, nil
}

type fixture struct {
	store *sqlite.Store
	files *files
	eyes  *eyes
	ears  *ears
	room  *media.Room
	seen  []string
}

func newFixture(t *testing.T, cfg media.Config, b media.Budget) *fixture {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "airi.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{store: st, files: &files{data: map[string][]byte{}, fetches: map[string]int{}}, eyes: &eyes{}, ears: &ears{}}
	room, err := media.New(cfg, media.Deps{
		Store:       st,
		Fetcher:     func(string) (media.Fetcher, string) { return f.files, "telegram" },
		Describer:   f.eyes,
		Transcriber: f.ears,
		Budget:      b,
		OnMedia:     func(kind, outcome string, _ int64) { f.seen = append(f.seen, kind+" "+outcome) },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.room = room
	return f
}

// ingest stores a message with attachments and returns it as stored.
func (f *fixture) ingest(t *testing.T, pid string, media ...state.Media) state.Message {
	t.Helper()
	m, _, err := f.store.Ingest(t.Context(), state.Message{ChannelID: "c", PlatformID: pid, SenderName: "Ada", Content: "look", Time: time.Now(), Media: media})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func photo(id string) state.Media {
	return state.Media{Kind: state.MediaPhoto, FileID: "file-" + id, UniqueID: "u-" + id, Size: 5}
}

func TestDescribeOnceAndCache(t *testing.T) {
	f := newFixture(t, media.Config{Mode: media.ModeDescribe}, nil)
	f.files.data["file-1"] = []byte("cat")
	first := f.ingest(t, "1", photo("1"))
	res, err := f.room.Prepare(t.Context(), "c", []state.Message{first})
	if err != nil {
		t.Fatal(err)
	}
	md := res.Messages[0].Media[0]
	if md.Text != "an image of cat (photo)" || md.Hash == "" {
		t.Fatalf("attachment = %+v", md)
	}
	if res.Tokens != 100 {
		t.Errorf("tokens = %d, want 100", res.Tokens)
	}
	// The stored message keeps the description.
	unread, err := f.store.Unread(t.Context(), "c", 0)
	if err != nil || len(unread) != 1 || unread[0].Media[0].Text != md.Text {
		t.Fatalf("stored = %+v, %v", unread, err)
	}
	// The same photo in another message: no download, no vision call.
	second := f.ingest(t, "2", photo("1"))
	res, err = f.room.Prepare(t.Context(), "c", []state.Message{unread[0], second})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[1].Media[0].Text; got != md.Text {
		t.Errorf("second message shows %q", got)
	}
	if f.files.fetches["file-1"] != 1 || f.eyes.calls != 1 {
		t.Errorf("fetches %d, vision calls %d; want 1 and 1", f.files.fetches["file-1"], f.eyes.calls)
	}
	if res.Tokens != 0 {
		t.Errorf("a cached description cost %d tokens", res.Tokens)
	}
	if strings.Join(f.seen, ",") != "photo described,photo cached" {
		t.Errorf("outcomes = %v", f.seen)
	}
}

func TestFetchedButNotDescribedIsNotFetchedAgain(t *testing.T) {
	f := newFixture(t, media.Config{Mode: media.ModeDescribe}, nil)
	f.files.data["file-1"] = []byte("cat")
	f.eyes.err = errors.New("vision model down")
	m := f.ingest(t, "1", photo("1"))
	res, err := f.room.Prepare(t.Context(), "c", []state.Message{m})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[0].Media[0].Text; got != "not looked at, the model call failed" {
		t.Errorf("failed description shows %q", got)
	}
	// Not kept: the next request tries again, without a download.
	stored, _ := f.store.Unread(t.Context(), "c", 0)
	if stored[0].Media[0].Text != "" {
		t.Errorf("a failure was kept on the message: %+v", stored[0].Media[0])
	}
	f.eyes.err = nil
	res, err = f.room.Prepare(t.Context(), "c", stored)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[0].Media[0].Text; got != "an image of cat (photo)" {
		t.Errorf("after recovery: %q", got)
	}
	if f.files.fetches["file-1"] != 1 {
		t.Errorf("fetched %d times, want 1", f.files.fetches["file-1"])
	}
}

func TestPlaceholdersSayWhy(t *testing.T) {
	f := newFixture(t, media.Config{Mode: media.ModeDescribe, MaxBytes: 10 << 20, VoiceMaxSeconds: 60}, nil)
	big := state.Media{Kind: state.MediaDocument, FileID: "d", UniqueID: "d", Name: "big.zip", Size: 30 << 20}
	long := state.Media{Kind: state.MediaVoice, FileID: "v", UniqueID: "v", Duration: 61}
	foreign := state.Media{Kind: state.MediaPhoto, FileID: "http://evil.example/x.png", UniqueID: "http://evil.example/x.png"}
	m := f.ingest(t, "1", big, long, foreign)
	f.files.err = adapters.ErrForeignSource
	res, err := f.room.Prepare(t.Context(), "c", []state.Message{m})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Messages[0].WithMedia()
	want := "[document big.zip, 30.0 MB: not fetched, 30.0 MB is over the 10.0 MB limit] [voice 1:01: not transcribed, longer than 1:00] [photo: not fetched, the file is not on the chat's own server] look"
	if got != want {
		t.Errorf("shown:\n %s\nwant\n %s", got, want)
	}
	if f.files.fetches["d"] != 0 || f.files.fetches["v"] != 0 || f.ears.calls != 0 || f.eyes.calls != 0 {
		t.Errorf("fetches %v, calls %d/%d", f.files.fetches, f.ears.calls, f.eyes.calls)
	}
}

func TestVoiceTranscribedOnce(t *testing.T) {
	f := newFixture(t, media.Config{Mode: media.ModeOff}, nil)
	f.files.data["file-v"] = []byte("hello")
	voice := state.Media{Kind: state.MediaVoice, FileID: "file-v", UniqueID: "u-v", Duration: 12}
	a, b := f.ingest(t, "1", voice), f.ingest(t, "2", voice)
	res, err := f.room.Prepare(t.Context(), "c", []state.Message{a, b})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range res.Messages {
		if got := m.Media[0].Label(); got != `[voice 0:12: “I said hello 'twice'”]` {
			t.Errorf("message %d: %s", i, got)
		}
	}
	if f.ears.calls != 1 || f.files.fetches["file-v"] != 1 {
		t.Errorf("transcriptions %d, fetches %d", f.ears.calls, f.files.fetches["file-v"])
	}
	if res.Tokens != 12*media.SpeechTokensPerSecond {
		t.Errorf("tokens = %d", res.Tokens)
	}
	// Images are not looked at with media off.
	f.files.data["file-1"] = []byte("cat")
	p := f.ingest(t, "3", photo("1"))
	if res, err = f.room.Prepare(t.Context(), "c", []state.Message{p}); err != nil || res.Messages[0].Media[0].Label() != "[photo]" {
		t.Errorf("off: %+v, %v", res.Messages, err)
	}
	if f.files.fetches["file-1"] != 0 {
		t.Error("media off fetched a photo")
	}
}

func TestBudgetSpentGivesPlaceholder(t *testing.T) {
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "budget.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tracker := budget.New(budget.Config{ChannelDaily: 1000}, st, nil, nil)
	if _, err := st.AddTokens(t.Context(), tracker.Day(time.Now()), "c", 900); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, media.Config{Mode: media.ModeDescribe}, tracker)
	f.files.data["file-1"] = []byte("cat")
	m := f.ingest(t, "1", photo("1"))
	res, err := f.room.Prepare(t.Context(), "c", []state.Message{m})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Messages[0].Media[0].Label(); got != "[photo: not looked at, today's token budget is spent]" {
		t.Errorf("over budget: %s", got)
	}
	if f.eyes.calls != 0 {
		t.Errorf("%d vision calls over budget", f.eyes.calls)
	}
}

func TestInlineSendsNewestImages(t *testing.T) {
	f := newFixture(t, media.Config{Mode: media.ModeInline, Inline: 2}, nil)
	var msgs []state.Message
	for _, id := range []string{"1", "2", "3"} {
		f.files.data["file-"+id] = []byte("img" + id)
		msgs = append(msgs, f.ingest(t, id, photo(id)))
	}
	res, err := f.room.Prepare(t.Context(), "c", msgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Images) != 2 {
		t.Fatalf("%d inline images, want 2", len(res.Images))
	}
	for i, want := range []bool{false, true, true} {
		h := res.Messages[i].Media[0].Hash
		if _, ok := res.Images[h]; ok != want {
			t.Errorf("message %d inline = %v, want %v", i, ok, want)
		}
	}
	if f.eyes.calls != 0 {
		t.Errorf("inline described %d images", f.eyes.calls)
	}
	img := res.Images[res.Messages[2].Media[0].Hash]
	if string(img.Data) != "img3" || img.Mime == "" {
		t.Errorf("image = %q %q", img.Data, img.Mime)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (media.Config{Mode: "pictures"}).Validate(); err == nil {
		t.Error("unknown mode accepted")
	}
	if _, err := media.New(media.Config{Mode: media.ModeDescribe}, media.Deps{Store: nil}); err == nil {
		t.Error("describe without a vision model accepted")
	}
}
