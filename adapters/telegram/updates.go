package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mymmrac/telego"
	ta "github.com/mymmrac/telego/telegoapi"
	"go.uber.org/zap"
)

// rawUpdate is one update of a getUpdates answer: decoded into telego's
// type, or, when that failed, its id and why.
type rawUpdate struct {
	id     int
	update telego.Update
	err    error
}

// getUpdates calls getUpdates and decodes each update on its own. telego
// decodes the whole answer at once, so one update it cannot read (a field
// of an unexpected type) fails the batch, and since the batch is never
// confirmed it comes back forever and blocks all intake.
func (a *Adapter) getUpdates(ctx context.Context, params *telego.GetUpdatesParams) ([]rawUpdate, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode getUpdates parameters: %w", err)
	}
	url := a.cfg.APIBaseURL + "/bot" + a.cfg.Token + "/getUpdates"
	resp, err := a.call.Call(ctx, url, &ta.RequestData{ContentType: ta.ContentTypeJSON, BodyRaw: body})
	if err != nil {
		return nil, err
	}
	if !resp.Ok {
		if resp.Error == nil {
			return nil, errors.New("getUpdates failed without an error description")
		}
		return nil, fmt.Errorf("api: %w", resp.Error)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(resp.Result, &items); err != nil {
		return nil, fmt.Errorf("getUpdates answer is not a list of updates: %w", err)
	}
	out := make([]rawUpdate, 0, len(items))
	for _, item := range items {
		var u rawUpdate
		if err := json.Unmarshal(item, &u.update); err != nil {
			u.err = err
			var id struct {
				UpdateID *int `json:"update_id"`
			}
			if json.Unmarshal(item, &id) == nil && id.UpdateID != nil {
				u.id = *id.UpdateID
			} else {
				u.id = -1
			}
		} else {
			u.id = u.update.UpdateID
		}
		out = append(out, u)
	}
	return out, nil
}

// skipUnreadable logs an update that could not be decoded; it is
// confirmed like any other, so that the updates after it still arrive.
func (a *Adapter) skipUnreadable(u rawUpdate) {
	if u.id < 0 {
		a.log.Error("skipping an unreadable update without an update_id", zap.Error(u.err))
		return
	}
	a.log.Error("skipping an unreadable update", zap.Int("update", u.id), zap.Error(u.err))
}
