module example.com/ahplshelper

go 1.22
