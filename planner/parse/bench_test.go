package parse

import "testing"

// BenchmarkParseCorpus parses every answer of the corpus once per
// iteration.
func BenchmarkParseCorpus(b *testing.B) {
	p := newTestParser(b)
	cases := loadCorpus(b)
	var bytes int64
	for _, c := range cases {
		bytes += int64(len(c.Raw))
	}
	b.SetBytes(bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, c := range cases {
			_, _ = p.Parse(c.Raw)
		}
	}
}

// BenchmarkParseStrict measures the fast path: one well-formed flat action.
func BenchmarkParseStrict(b *testing.B) {
	p := newTestParser(b)
	raw := `{"action":"send_message","channelId":"-1001234567890","content":"Morning all! Coffee first, then chaos.","replyTo":"4411"}`
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := p.Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}
