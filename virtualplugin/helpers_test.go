package virtualplugin

import "time"

func nowMinusHour() time.Time { return time.Now().Add(-time.Hour) }
