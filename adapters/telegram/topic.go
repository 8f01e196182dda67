package telegram

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mymmrac/telego"
)

// A forum supergroup's topics are channels of their own, so that each has
// its own history, unread messages, attention and budget, and an answer
// can only land in the topic it answers. A topic's channel id is
// "<chat id>/<thread id>"; the General topic (whose messages carry no
// topic) is the chat id alone.

// channelID is the channel a message belongs to: its forum topic, or its
// chat.
func channelID(m *telego.Message) string {
	chat := strconv.FormatInt(m.Chat.ID, 10)
	if thread := topicOf(m); thread != 0 {
		return chat + "/" + strconv.Itoa(thread)
	}
	return chat
}

// topicOf is the forum topic a message is written in, 0 for the General
// topic and chats without topics. Outside forums message_thread_id names
// a reply thread, which is no channel of its own.
func topicOf(m *telego.Message) int {
	if m.IsTopicMessage && m.MessageThreadID != 0 {
		return m.MessageThreadID
	}
	return 0
}

// splitChannel reads a channel id into its chat and forum topic (0 when
// none).
func splitChannel(id string) (chat telego.ChatID, thread int, err error) {
	chatPart, threadPart, ok := strings.Cut(strings.TrimSpace(id), "/")
	chat, err = parseChatID(chatPart)
	if err != nil || !ok {
		return chat, 0, err
	}
	thread, err = strconv.Atoi(threadPart)
	if err != nil || thread <= 0 {
		return chat, 0, fmt.Errorf("telegram: channel id %q names no forum topic (want <chat id>/<topic id>, such as -1001234567890/42)", id)
	}
	return chat, thread, nil
}

// topicRoot reports whether r is the service message that created m's
// topic: in a forum, every message that replies to nothing else is sent
// as a reply to it.
func topicRoot(m, r *telego.Message) bool {
	return topicOf(m) != 0 && (r.ForumTopicCreated != nil || r.MessageID == m.MessageThreadID)
}

// learnTopic remembers a topic's name from the service messages that
// create or rename it, or from the creation message a topic's messages
// reply to.
func (a *Adapter) learnTopic(m *telego.Message) {
	thread := topicOf(m)
	if thread == 0 {
		return
	}
	name := ""
	switch {
	case m.ForumTopicCreated != nil:
		name = m.ForumTopicCreated.Name
	case m.ForumTopicEdited != nil:
		name = m.ForumTopicEdited.Name
	case m.ReplyToMessage != nil && m.ReplyToMessage.ForumTopicCreated != nil:
		a.mu.Lock()
		_, known := a.topics[topicKey{m.Chat.ID, thread}]
		a.mu.Unlock()
		if !known {
			name = m.ReplyToMessage.ForumTopicCreated.Name
		}
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.topics == nil {
		a.topics = map[topicKey]string{}
	}
	a.topics[topicKey{m.Chat.ID, thread}] = name
}

// topicKey names a forum topic.
type topicKey struct {
	chat   int64
	thread int
}

// channelTitle is the title of a message's channel: the chat's, and for
// a forum topic the group's followed by the topic's name (or number,
// until the name is seen), so that the group stays in view.
func (a *Adapter) channelTitle(m *telego.Message) string {
	title := chatTitle(&m.Chat)
	thread := topicOf(m)
	if thread == 0 {
		return title
	}
	a.mu.Lock()
	name := a.topics[topicKey{m.Chat.ID, thread}]
	a.mu.Unlock()
	if name == "" {
		name = "topic " + strconv.Itoa(thread)
	}
	return title + " / " + name
}

// maxKnownMessages bounds the messages whose topic is remembered for
// checking replies; past it the oldest half is forgotten.
const maxKnownMessages = 8192

// msgKey names a message of a chat.
type msgKey struct {
	chat int64
	id   int
}

// rememberTopic keeps the topic a forum message was written in, so that
// a reply to it from another topic's channel is refused.
func (a *Adapter) rememberTopic(m *telego.Message) {
	if !m.Chat.IsForum {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.msgTopics == nil {
		a.msgTopics = map[msgKey]int{}
	}
	if len(a.msgTopics) >= maxKnownMessages {
		for k := range a.msgTopics {
			if len(a.msgTopics) < maxKnownMessages/2 {
				break
			}
			delete(a.msgTopics, k)
		}
	}
	a.msgTopics[msgKey{m.Chat.ID, m.MessageID}] = topicOf(m)
}

// checkReply refuses a reply, sent to thread of chat, to a message known
// to be in another topic: Telegram would put it in the replied message's
// topic, another channel than the one answered.
func (a *Adapter) checkReply(chat int64, thread, replyTo int) error {
	a.mu.Lock()
	topic, known := a.msgTopics[msgKey{chat, replyTo}]
	a.mu.Unlock()
	if !known || topic == thread {
		return nil
	}
	where := "the General topic"
	if topic != 0 {
		where = "topic " + strconv.Itoa(topic)
	}
	return fmt.Errorf("telegram send: replyTo %d is a message of %s, another channel; reply to a message of this channel or leave replyTo out; not sent", replyTo, where)
}
