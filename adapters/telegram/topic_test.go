package telegram

import (
	"strconv"
	"strings"
	"testing"
)

func TestSplitChannel(t *testing.T) {
	tests := []struct {
		id     string
		chat   int64
		thread int
		ok     bool
	}{
		{"-1001234567890", -1001234567890, 0, true},
		{"-1001234567890/42", -1001234567890, 42, true},
		{" 501 ", 501, 0, true},
		{"-100/0", 0, 0, false},
		{"-100/-3", 0, 0, false},
		{"-100/x", 0, 0, false},
		{"-100/", 0, 0, false},
		{"abc", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			chat, thread, err := splitChannel(tt.id)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if tt.ok && (chat.ID != tt.chat || thread != tt.thread) {
				t.Errorf("got chat %d thread %d, want %d %d", chat.ID, thread, tt.chat, tt.thread)
			}
		})
	}
}

// FuzzSplitChannel reads any channel id the model may name: it is
// refused or read back into the id it came from.
func FuzzSplitChannel(f *testing.F) {
	for _, s := range []string{"-1001234567890/42", "501", "@group", "-100/", "/5", "1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		chat, thread, err := splitChannel(id)
		if err != nil || chat.Username != "" {
			return
		}
		back := strconv.FormatInt(chat.ID, 10)
		if thread != 0 {
			back += "/" + strconv.Itoa(thread)
		}
		if thread < 0 || !strings.Contains(id, strconv.FormatInt(chat.ID, 10)) {
			t.Errorf("%q read as chat %d thread %d (%s)", id, chat.ID, thread, back)
		}
	})
}
