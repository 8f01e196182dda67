package adapters

import (
	"context"
	"errors"
	"fmt"

	"github.com/airi-go/airi/state"
)

// MediaFetcher is the optional part of an adapter that fetches the files
// its messages announced, from the platform's own file endpoint only.
type MediaFetcher interface {
	// FetchMedia returns the bytes of m (or of its thumbnail when thumb
	// is set) and their type, reading at most max bytes. A file the
	// platform says or shows is larger is a *TooLargeError; a source the
	// adapter may not fetch from is ErrForeignSource.
	FetchMedia(ctx context.Context, m state.Media, thumb bool, max int64) ([]byte, string, error)
}

// ErrForeignSource is a file whose address is not the platform's own:
// fetching it would let a message make the bot request any URL.
var ErrForeignSource = errors.New("file is not on the platform's own server")

// TooLargeError is a file over the size limit; nothing beyond the limit
// was read.
type TooLargeError struct {
	Size  int64 // the file's size, when known (0: over Limit, exact size unknown)
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size > 0 {
		return fmt.Sprintf("file of %d bytes is over the %d byte limit", e.Size, e.Limit)
	}
	return fmt.Sprintf("file is over the %d byte limit", e.Limit)
}
