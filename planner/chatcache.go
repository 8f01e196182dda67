package planner

// DefaultCachedChannels is how many channels' rendered system messages and
// history token counts a Builder keeps when BuilderOptions.CachedChannels
// is zero.
const DefaultCachedChannels = 4096

// chatCache is what a Builder keeps of one channel between its ticks: the
// static sections of its system message as rendered, and the token counts
// of its history turns. Neither is ever changed once made; an update
// replaces it, so a reader holding one needs no lock.
type chatCache struct {
	sys   *systemCache
	turns []turnCount
}

// chatCaches keeps the caches of the channels built most recently, at most
// max of them: a channel that went quiet costs nothing here once enough
// others were built since. Two generations stand in for a least recently
// used order at no cost per entry: new entries go to cur; once cur holds
// half of max it becomes old and the previous old is dropped; an entry
// found in old moves to cur. The Builder's mu guards it.
type chatCaches struct {
	max      int
	cur, old map[string]*chatCache
}

func newChatCaches(max int) *chatCaches {
	return &chatCaches{max: max, cur: map[string]*chatCache{}}
}

// get returns the channel's cache, or the zero cache.
func (c *chatCaches) get(id string) chatCache {
	if e, ok := c.cur[id]; ok {
		return *e
	}
	if e, ok := c.old[id]; ok {
		delete(c.old, id)
		c.add(id, e)
		return *e
	}
	return chatCache{}
}

// update changes the channel's cache with f, keeping it among the most
// recent.
func (c *chatCaches) update(id string, f func(*chatCache)) {
	e := c.get(id)
	f(&e)
	c.add(id, &e)
}

func (c *chatCaches) add(id string, e *chatCache) {
	if _, ok := c.cur[id]; !ok && len(c.cur) >= max(c.max/2, 1) {
		c.old, c.cur = c.cur, make(map[string]*chatCache, len(c.cur))
	}
	c.cur[id] = e
}

// len is the number of channels cached.
func (c *chatCaches) len() int { return len(c.cur) + len(c.old) }
