module example.com/testrun

go 1.22
