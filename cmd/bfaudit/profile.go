package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// withProfiling adds the hidden --cpuprofile and --memprofile flags, for
// measuring a whole run (see the README's speed section): the CPU profile
// covers the command from flag parsing on, the heap profile is written at
// the end. It returns what must run once the command returned, whatever
// its outcome (an audit with findings returns an error).
func withProfiling(root *cobra.Command) (stop func()) {
	var cpuPath, memPath string
	pf := root.PersistentFlags()
	pf.StringVar(&cpuPath, "cpuprofile", "", "write a CPU profile of the run to this file")
	pf.StringVar(&memPath, "memprofile", "", "write a heap profile at the end of the run to this file")
	_ = pf.MarkHidden("cpuprofile")
	_ = pf.MarkHidden("memprofile")
	var cpu *os.File
	pre := root.PersistentPreRun
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) {
		if pre != nil {
			pre(cmd, args)
		}
		if cpuPath == "" {
			return
		}
		f, err := os.Create(cpuPath)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "bfaudit: --cpuprofile:", err)
			return
		}
		cpu = f
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if memPath == "" {
			return
		}
		f, err := os.Create(memPath)
		if err == nil {
			// The allocation counts of the whole run are in every heap
			// profile; a GC first makes the live figures current.
			runtime.GC()
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(root.ErrOrStderr(), "bfaudit: --memprofile:", err)
		}
	}
}
