@echo off
rem Starts the devcoach binary for devcoach's agent packages on Windows (the POSIX shell version
rem is devcoach-launch, next to this file; agents that resolve "devcoach-launch" through PATHEXT
rem land here). The order is the same:
rem   1. a devcoach.exe of exactly this package's version on PATH or in cargo's bin folder: the
rem      skill and hooks here were written for it;
rem   2. the npm build of exactly this version, if npm already has it in its cache;
rem   3. any other devcoach found in step 1 (another version beats none);
rem   4. for anything but a hook: npx fetching this pinned version from the npm registry.
rem A hook never waits for an install: with no devcoach at hand it stays silent (exit 0).
setlocal EnableExtensions DisableDelayedExpansion
set "VERSION=0.1.0"
set "PACKAGE=@devcoach-rs/devcoach"
set "HOOK=no"
set "FIRST=%~1"
if defined FIRST if /i "%FIRST:~-5%"=="-hook" set "HOOK=yes"
if /i "%FIRST%"=="lesson-ready" set "HOOK=yes"
set "OTHER="
set "FOUND="

rem The first devcoach.exe on PATH (what the agent's own shell would run).
set "ON_PATH="
for %%I in (devcoach.exe) do set "ON_PATH=%%~$PATH:I"
if defined ON_PATH call :consider "%ON_PATH%"
if not defined FOUND if defined USERPROFILE call :consider "%USERPROFILE%\.cargo\bin\devcoach.exe"
if defined FOUND goto run

rem npm's cache: npm_config_cache when set, else npm's default on Windows.
set "CACHE=%npm_config_cache%"
if not defined CACHE if defined LOCALAPPDATA set "CACHE=%LOCALAPPDATA%\npm-cache"
rem From inside the folder, and no ( ) blocks anywhere: some cmd implementations mis-read a
rem quoted path with a wildcard, and a block holding exit or goto.
if not defined CACHE goto cache_done
rem A folder's attributes start with "d"; a missing one has none (pushd's result is not to be
rem trusted everywhere).
set "ATTRIBUTES="
for %%C in ("%CACHE%\_npx") do set "ATTRIBUTES=%%~aC"
if not "%ATTRIBUTES:~0,1%"=="d" goto cache_done
pushd "%CACHE%\_npx"
for /d %%D in (*) do if not defined FOUND call :cached "%%~fD\node_modules\@devcoach-rs\devcoach-win32-x64"
popd
:cache_done
if defined FOUND goto run

if defined OTHER set "FOUND=%OTHER%"
if defined FOUND goto run
if "%HOOK%"=="yes" exit /b 0
set "NPX="
for %%I in (npx.cmd) do set "NPX=%%~$PATH:I"
if not defined NPX goto missing
call "%NPX%" -y "%PACKAGE%@%VERSION%" %*
exit /b %ERRORLEVEL%

:missing
>&2 echo devcoach: the devcoach program was not found, and npx is not available to fetch %PACKAGE%@%VERSION%. Install devcoach (https://github.com/devcoach-rs/devcoach#install), then restart your agent.
exit /b 1

:run
"%FOUND%" %*
exit /b %ERRORLEVEL%

rem A candidate: taken at once when it is this version, else remembered as the first other one.
:consider
if not exist "%~1" exit /b 0
set "SAID="
for /f "tokens=1,2" %%A in ('call "%~1" --version 2^>nul ^<nul') do if not defined SAID set "SAID=%%A %%B"
if "%SAID%"=="devcoach %VERSION%" set "FOUND=%~1"
if not defined FOUND if not defined OTHER set "OTHER=%~1"
exit /b 0

rem One npx cache entry: taken when its platform package is this version and has the binary.
:cached
if not exist "%~1\bin\devcoach.exe" exit /b 0
rem Read with cmd's own parser (no findstr): `  "version": "x",` splits into "version" and "x".
for /f "usebackq tokens=1,2 delims=:, " %%A in ("%~1\package.json") do if "%%~A"=="version" if "%%~B"=="%VERSION%" set "FOUND=%~1\bin\devcoach.exe"
exit /b 0
