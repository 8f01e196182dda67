package telegramtest

import (
	"net/http"
	"strconv"
)

// MaxDownloadBytes is the Bot API's limit on files a bot may download:
// getFile refuses anything larger with "file is too big".
const MaxDownloadBytes = 20 << 20

// getFile answers getFile: the file's path for the download, or
// Telegram's refusal of a file over MaxDownloadBytes.
func (s *Server) getFile(p params) (int, any, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[p.str("file_id")]
	if f == nil {
		return http.StatusBadRequest, nil, "Bad Request: invalid file_id"
	}
	f.getFile++
	s.notify()
	if f.size > MaxDownloadBytes {
		return http.StatusBadRequest, nil, "Bad Request: file is too big"
	}
	return http.StatusOK, map[string]any{"file_id": f.id, "file_unique_id": f.unique, "file_size": f.size, "file_path": f.path}, ""
}

// serveFile answers GET /file/bot<token>/<file_path> with the bytes.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, token, filePath string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	if token != s.opts.Token {
		writeError(w, http.StatusUnauthorized, "Unauthorized", 0)
		return
	}
	s.mu.Lock()
	f := s.paths[filePath]
	var data []byte
	if f != nil {
		f.downloads++
		data = f.data
		if data == nil {
			data = make([]byte, f.size)
		}
		s.notify()
	}
	s.mu.Unlock()
	if f == nil {
		writeError(w, http.StatusNotFound, "Not Found", 0)
		return
	}
	// Telegram's file server does not say what a file is.
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}

// GetFileCalls returns how many getFile calls asked for the file id.
func (s *Server) GetFileCalls(fileID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.files[fileID]; f != nil {
		return f.getFile
	}
	return 0
}

// Downloads returns how many times the file with that id was downloaded.
func (s *Server) Downloads(fileID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f := s.files[fileID]; f != nil {
		return f.downloads
	}
	return 0
}

// FileCounts is what GET /_control/files reports of one file.
type FileCounts struct {
	UniqueID  string `json:"file_unique_id"`
	Size      int64  `json:"file_size"`
	GetFile   int    `json:"get_file"`
	Downloads int    `json:"downloads"`
}

// Files returns the files the server announced, by file id, with their
// getFile calls and downloads.
func (s *Server) Files() map[string]FileCounts {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]FileCounts, len(s.files))
	for id, f := range s.files {
		out[id] = FileCounts{UniqueID: f.unique, Size: f.size, GetFile: f.getFile, Downloads: f.downloads}
	}
	return out
}
