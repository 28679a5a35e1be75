@echo off
rem Eval Workbench's command line: the installer puts this folder ({app}\bin) on the user's PATH
rem (the "Add the command line to PATH" task, on by default), so `workbench` in a new Command
rem Prompt or PowerShell window runs the console program beside the windowed one.
"%~dp0..\workbench-cli.exe" %*
exit /b %ERRORLEVEL%
