package sub

import "testing"

func TestSub(t *testing.T) {}
