#!/bin/sh
echo hook
