package telegramtest

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// ControlMessage is the body of POST /_control/message: a user message to
// inject. ChatType defaults to private for a positive chat id (the chat
// with From) and supergroup for a negative one.
type ControlMessage struct {
	ChatID    int64  `json:"chat_id"`
	ChatType  string `json:"chat_type,omitempty"`
	ChatTitle string `json:"chat_title,omitempty"`
	From      User   `json:"from"`
	Text      string `json:"text,omitempty"`
	Caption   string `json:"caption,omitempty"`
	ReplyTo   int    `json:"reply_to,omitempty"`
	Media     string `json:"media,omitempty"`
	Emoji     string `json:"emoji,omitempty"`
	FileName  string `json:"file_name,omitempty"`
	// The fields of Incoming that describe the attachment; file and
	// thumb are base64 in JSON.
	SetName   string `json:"set_name,omitempty"`
	Animated  bool   `json:"animated,omitempty"`
	Performer string `json:"performer,omitempty"`
	Title     string `json:"title,omitempty"`
	File      []byte `json:"file,omitempty"`
	FileSize  int64  `json:"file_size,omitempty"`
	FileID    string `json:"file_id,omitempty"`
	UniqueID  string `json:"file_unique_id,omitempty"`
	Mime      string `json:"mime_type,omitempty"`
	Duration  int    `json:"duration,omitempty"`
	Thumb     []byte `json:"thumb,omitempty"`
	// Thread is a forum topic id (the chat becomes a forum).
	Thread int `json:"thread,omitempty"`
	// ForwardedFrom makes the message a forward of a post by that name.
	ForwardedFrom string `json:"forwarded_from,omitempty"`
}

// ControlFault is the body of POST /_control/fault.
type ControlFault struct {
	Method string `json:"method"`
	Fault
}

// serveControl answers the control API:
//
//	POST /_control/message  ControlMessage → {"message_id", "chat_id"}
//	POST /_control/raw      any update fields → {"update_id"}, sent as given
//	POST /_control/edit     {"chat_id", "message_id", "text"}
//	POST /_control/topic    ControlTopic → {"thread"}
//	POST /_control/fault    ControlFault
//	GET  /_control/sent     [Sent]; ?min=N&wait=10s waits for N of them
//	GET  /_control/actions  [ChatAction]
//	GET  /_control/updates  {"pending": [update ids], "calls": {method: n}}
//	GET  /_control/files    {file_id: FileCounts}
//	POST /_control/react    ControlReaction → {"queued"}
//	POST /_control/admin    {"chat_id", "admin"}
//	GET  /_control/reactions [SetReaction]
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	switch r.Method + " " + r.URL.Path {
	case "POST /_control/message":
		var in ControlMessage
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad message: "+err.Error(), http.StatusBadRequest)
			return
		}
		if in.From.ID == 0 {
			in.From = User{ID: 1001, FirstName: "Test", LastName: "User", Username: "test_user"}
		}
		chat := Chat{ID: in.ChatID, Type: in.ChatType, Title: in.ChatTitle, IsForum: in.Thread != 0}
		if chat.ID == 0 || (chat.ID > 0 && chat.Type == "") || chat.Type == Private {
			chat = PrivateChat(in.From)
		}
		if chat.Type != Private && chat.Title == "" {
			chat.Title = "Group " + strconv.FormatInt(chat.ID, 10)
		}
		m := s.Post(Incoming{Chat: chat, From: in.From, Text: in.Text, Caption: in.Caption, ReplyTo: in.ReplyTo,
			Media: in.Media, Emoji: in.Emoji, Set: in.SetName, Animated: in.Animated, FileName: in.FileName,
			Performer: in.Performer, Title: in.Title, File: in.File, FileSize: in.FileSize, FileID: in.FileID,
			UniqueID: in.UniqueID, Mime: in.Mime, Duration: in.Duration, Thumb: in.Thumb,
			Thread: in.Thread, ForwardedFrom: in.ForwardedFrom})
		writeJSON(w, http.StatusOK, map[string]any{"message_id": m.MessageID, "chat_id": m.Chat.ID})
	case "POST /_control/raw":
		var fields map[string]any
		if err := json.NewDecoder(r.Body).Decode(&fields); err != nil {
			http.Error(w, "bad update: "+err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"update_id": s.PostRaw(fields)})
	case "POST /_control/edit":
		var in struct {
			ChatID    int64  `json:"chat_id"`
			MessageID int    `json:"message_id"`
			Text      string `json:"text"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "bad edit: "+err.Error(), http.StatusBadRequest)
			return
		}
		if err := s.Edit(in.ChatID, in.MessageID, in.Text); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	case "POST /_control/topic":
		s.serveTopic(w, r)
	case "POST /_control/fault":
		var in ControlFault
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Method == "" {
			http.Error(w, "bad fault: want {\"method\": ..., \"code\": ..., ...}", http.StatusBadRequest)
			return
		}
		s.Fail(in.Method, in.Fault)
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	case "GET /_control/sent":
		sent := s.Sent()
		if n, err := strconv.Atoi(r.URL.Query().Get("min")); err == nil && n > len(sent) {
			wait, err := time.ParseDuration(r.URL.Query().Get("wait"))
			if err != nil || wait <= 0 {
				wait = 10 * time.Second
			}
			ctx, cancel := context.WithTimeout(r.Context(), wait)
			sent, _ = s.WaitSent(ctx, n)
			cancel()
		}
		if sent == nil {
			sent = []Sent{}
		}
		writeJSON(w, http.StatusOK, sent)
	case "GET /_control/actions":
		acts := s.ChatActions()
		if acts == nil {
			acts = []ChatAction{}
		}
		writeJSON(w, http.StatusOK, acts)
	case "GET /_control/updates":
		s.mu.Lock()
		calls := make(map[string]int, len(s.calls))
		for k, v := range s.calls {
			calls[k] = v
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"pending": s.Pending(), "calls": calls})
	case "GET /_control/files":
		writeJSON(w, http.StatusOK, s.Files())
	default:
		if !s.serveReactionControl(w, r) {
			http.Error(w, "unknown control call", http.StatusNotFound)
		}
	}
}
