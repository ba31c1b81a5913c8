package virtualplugin

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func manySkills(b *testing.B, n int) string {
	root := filepath.Join(b.TempDir(), "ws")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("skill-%05d", i)
		write(b, root, ".github/skills/"+name+"/SKILL.md", fmt.Sprintf("---\nname: %s\ndescription: Skill number %d does one thing well.\n---\n\nBody of %s.\n", name, i, name))
	}
	return root
}

// BenchmarkColdScan10kSkills: walk, hash, lay out and nonce 10,000 skills
// from a cold builder (target < 1 s).
func BenchmarkColdScan10kSkills(b *testing.B) {
	root := manySkills(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bl, err := NewBuilder(root, Options{})
		if err != nil {
			b.Fatal(err)
		}
		snap, err := bl.Build()
		if err != nil || len(snap.Plugins) != 1 || len(snap.Plugins[0].Files) != 10001 {
			b.Fatalf("unexpected snapshot: %v", err)
		}
	}
}

// BenchmarkOneFileChange10kSkills: one skill edited, rebuild and new nonce
// (target < 5 ms, excluding debounce).
func BenchmarkOneFileChange10kSkills(b *testing.B) {
	root := manySkills(b, 10000)
	bl, err := NewBuilder(root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := bl.Build(); err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(root, ".github/skills/skill-00042/SKILL.md")
	prev := ""
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := os.WriteFile(p, []byte(fmt.Sprintf("---\nname: skill-00042\ndescription: edit %d\n---\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		bl.Changed(p)
		snap, err := bl.Build()
		if err != nil {
			b.Fatal(err)
		}
		if snap.Plugins[0].Nonce == prev {
			b.Fatal("nonce did not change")
		}
		prev = snap.Plugins[0].Nonce
	}
}

// BenchmarkMemory10kSkills reports the heap a built snapshot of 10,000
// skills keeps alive (builder cache + published tree).
func BenchmarkMemory10kSkills(b *testing.B) {
	root := manySkills(b, 10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		bl, _ := NewBuilder(root, Options{})
		snap, _ := bl.Build()
		srv := NewServer()
		srv.Publish(snap)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-live")
		runtime.KeepAlive(bl)
		runtime.KeepAlive(srv)
	}
}

// BenchmarkPublishKeeping10kSkills: one skill edited, rebuilt and
// published while the superseded versions are kept (withdrawal check over
// every kept version included); "off" is the same with keeping disabled.
func BenchmarkPublishKeeping10kSkills(b *testing.B) {
	for _, keep := range []bool{true, false} {
		name := "on"
		if !keep {
			name = "off"
		}
		b.Run(name, func(b *testing.B) {
			root := manySkills(b, 10000)
			bl, err := NewBuilder(root, Options{})
			if err != nil {
				b.Fatal(err)
			}
			srv := NewServer()
			if !keep {
				srv.SetKeepLimits(0, 0)
			}
			snap, err := bl.Build()
			if err != nil {
				b.Fatal(err)
			}
			srv.Publish(snap)
			p := filepath.Join(root, ".github/skills/skill-00042/SKILL.md")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if err := os.WriteFile(p, []byte(fmt.Sprintf("---\nname: skill-00042\ndescription: edit %d\n---\n", i)), 0o644); err != nil {
					b.Fatal(err)
				}
				bl.Changed(p)
				snap, err := bl.Build()
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				srv.Publish(snap)
			}
			b.ReportMetric(float64(srv.KeptVersions()), "kept")
			b.ReportMetric(float64(srv.KeptBytes()), "keptBytes")
		})
	}
}
