package admin

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/airi-go/airi/schedule"
)

// reminderCollector reports the reminders' counters since start.
type reminderCollector struct {
	counts *schedule.Counts
	desc   *prometheus.Desc
}

// Describe implements prometheus.Collector.
func (c *reminderCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *reminderCollector) Collect(ch chan<- prometheus.Metric) {
	for _, e := range []struct {
		event string
		n     int64
	}{
		{"scheduled", c.counts.Scheduled.Load()},
		{"delivered", c.counts.Delivered.Load()},
		{"late", c.counts.Late.Load()},
		{"dropped", c.counts.Dropped.Load()},
		{"cancelled", c.counts.Cancelled.Load()},
		{"failed", c.counts.Failed.Load()},
	} {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(e.n), e.event)
	}
}

// RegisterReminders adds the reminders scheduled, delivered, late,
// dropped, cancelled and failed, as airi_reminders_total{event}.
func (m *Metrics) RegisterReminders(c *schedule.Counts) {
	if c == nil {
		return
	}
	m.reg.MustRegister(&reminderCollector{counts: c,
		desc: prometheus.NewDesc("airi_reminders_total", "Reminders by event: scheduled, delivered, late (delivered after a downtime), dropped, cancelled (by the chat), failed.", []string{"event"}, nil)})
}
