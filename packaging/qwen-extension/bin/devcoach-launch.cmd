@echo off
rem Starts the devcoach binary for devcoach's agent packages on Windows (the POSIX shell version
rem is devcoach-launch, next to this file; agents that resolve "devcoach-launch" through PATHEXT
rem land here). The order is the same:
rem   1. a working devcoach.exe of exactly this package's version in a folder on PATH or in
rem      cargo's bin folder: the skill and hooks here were written for it;
rem   2. the npm build of exactly this version, if npm already has it in its cache;
rem   3. any other working devcoach found in step 1 (another version beats none);
rem   4. for anything but a hook: npx fetching this pinned version from the npm registry.
rem A candidate counts only when it answers --version like a devcoach; one that does not start
rem is passed over, with the reason.
rem A hook never waits for an install. With no working devcoach it records what it found in
rem %LOCALAPPDATA%\devcoach\last-failure and answers with one short notice at most once a day
rem (notice-day holds the day of the last one) where the agent shows a hook's systemMessage; it
rem always exits 0 and never writes to stderr.
rem "devcoach-launch doctor" prints what the launcher found, then devcoach's own doctor report.
rem No ( ) blocks anywhere: some cmd implementations mis-read a quoted path with a wildcard, and
rem a block holding exit or goto.
setlocal EnableExtensions DisableDelayedExpansion
set "VERSION=0.1.0"
set "PACKAGE=@devcoach-rs/devcoach"
set "INSTALL=https://github.com/devcoach-rs/devcoach#install-and-connect-your-agents"
set "MODE=server"
set "FIRST=%~1"
if defined FIRST if /i "%FIRST:~-5%"=="-hook" set "MODE=hook"
if /i "%FIRST%"=="lesson-ready" set "MODE=hook"
if /i "%FIRST%"=="doctor" set "MODE=doctor"
if not defined FIRST set "FIRST=(no arguments)"
set "FOUND="
set "FOUND_SAID="
set "OTHER="
set "OTHER_SAID="
set "CACHED="
set "CACHED_SAID="
set "CHOSEN="
set "CHOSEN_SAID="
set "STATE="
rem N candidates looked at: PATHS1.. their paths, TRIED1.. "<path>: <answer, or why not>".
set "N=0"

rem Every devcoach.exe on PATH (a broken first one must not hide a working one behind it), then
rem cargo's folder.
if defined PATH for %%P in ("%PATH:;=" "%") do if exist "%%~P\devcoach.exe" call :consider "%%~P\devcoach.exe"
if defined USERPROFILE call :consider "%USERPROFILE%\.cargo\bin\devcoach.exe"

rem npm's cache: npm_config_cache when set, else npm's default on Windows.
set "CACHE=%npm_config_cache%"
if not defined CACHE if defined LOCALAPPDATA set "CACHE=%LOCALAPPDATA%\npm-cache"
set "CACHE_LINE=npm cache: no working %VERSION% build for win32-x64 under %CACHE%\_npx"
if not defined CACHE set "CACHE_LINE=npm cache: none, LOCALAPPDATA is not set"
if defined FOUND if not "%MODE%"=="doctor" goto choose
if not defined CACHE goto choose
rem A folder's attributes start with "d"; a missing one has none (pushd's result is not to be
rem trusted everywhere). From inside the folder: see above about wildcards.
call :is_dir "%CACHE%\_npx"
if not defined ISDIR goto choose
pushd "%CACHE%\_npx"
for /d %%D in (*) do if not defined CACHED call :cached "%%~fD\node_modules\@devcoach-rs\devcoach-win32-x64"
popd

:choose
if defined FOUND goto choose_found
if defined CACHED goto choose_cached
if defined OTHER goto choose_other
goto nothing
:choose_found
set "CHOSEN=%FOUND%"
set "CHOSEN_SAID=%FOUND_SAID%"
goto chosen
:choose_cached
set "CHOSEN=%CACHED%"
set "CHOSEN_SAID=%CACHED_SAID%"
goto chosen
:choose_other
set "CHOSEN=%OTHER%"
set "CHOSEN_SAID=%OTHER_SAID%"
:chosen
if "%MODE%"=="doctor" goto doctor
"%CHOSEN%" %*
exit /b %ERRORLEVEL%

rem Nothing works.
:nothing
if "%MODE%"=="doctor" goto doctor
call :state
set "TODAY=%DATE%"
if "%MODE%"=="hook" call :hook_failure 2>nul
if "%MODE%"=="hook" exit /b 0
set "NPX="
for %%I in (npx.cmd) do set "NPX=%%~$PATH:I"
if defined NPX goto npx
call :record "stopped: npx is not on PATH" 2>nul
>&2 call :missing
exit /b 1
:npx
call :record "npx -y %PACKAGE%@%VERSION%" 2>nul
call "%NPX%" -y "%PACKAGE%@%VERSION%" %*
exit /b %ERRORLEVEL%

:missing
echo devcoach: a working devcoach program was not found, and npx is not available to fetch %PACKAGE%@%VERSION%.
echo Looked at:
call :list
echo This machine: Windows %PROCESSOR_ARCHITECTURE%.
echo Install devcoach for it (%INSTALL%), then restart your agent.
exit /b 0

rem A hook with nothing working: record it, and give the notice at most once a day, only when the
rem day could be written down (a notice that cannot be counted would come back on every stop).
:hook_failure
call :record ""
set "NOTICE="
if /i "%FIRST%"=="stop-hook" set "NOTICE=claude"
if /i "%FIRST%"=="prompt-hook" set "NOTICE=claude"
if /i "%FIRST%"=="lesson-ready" set "NOTICE=claude"
if /i "%FIRST%"=="onboard-hook" set "NOTICE=claude"
if /i "%FIRST:~0,7%"=="gemini-" set "NOTICE=gemini"
if /i "%FIRST:~0,5%"=="qwen-" set "NOTICE=qwen"
rem Copilot CLI shows nothing of a hook's answer to the user; the other agents do not run this.
if not defined NOTICE exit /b 0
if not defined STATE exit /b 0
if not defined TODAY exit /b 0
set "DAY="
if exist "%STATE%\notice-day" set /p DAY=<"%STATE%\notice-day"
if "%DAY%"=="%TODAY%" exit /b 0
>"%STATE%\notice-day" echo %TODAY%
set "DAY="
set /p DAY=<"%STATE%\notice-day"
if not "%DAY%"=="%TODAY%" exit /b 0
if "%NOTICE%"=="claude" echo {"systemMessage":"devcoach is not running, so no lessons for now: its program is missing or does not start on this machine. Run /devcoach:setup to see why and how to fix it. This notice shows once a day."}
if "%NOTICE%"=="gemini" echo {"systemMessage":"devcoach is not running, so no lessons for now: its program is missing or does not start on this machine. To see why, run devcoach-launch doctor from .gemini/extensions/devcoach/bin in your user folder. This notice shows once a day."}
if "%NOTICE%"=="qwen" echo {"systemMessage":"devcoach is not running, so no lessons for now: its program is missing or does not start on this machine. To see why, run devcoach-launch doctor from .qwen/extensions/devcoach/bin in your user folder. This notice shows once a day."}
exit /b 0

rem What the launcher found, then devcoach's own report.
:doctor
echo devcoach-launch.cmd %VERSION%: looks for devcoach %VERSION%, then npm's cache, then any other working devcoach
echo platform: Windows %PROCESSOR_ARCHITECTURE%, npm build win32-x64
echo candidates:
call :list
set "NPX="
for %%I in (npx.cmd) do set "NPX=%%~$PATH:I"
set "LINE=npx: not on PATH"
if defined NPX set "LINE=npx: %NPX%"
call :say LINE
call :state
if not defined STATE goto doctor_no_failure
if not exist "%STATE%\last-failure" goto doctor_no_failure
set "LINE=last failure, from %STATE%\last-failure:"
call :say LINE
type "%STATE%\last-failure"
goto doctor_notice
:doctor_no_failure
echo last failure: none recorded
:doctor_notice
set "DAY="
if defined STATE if exist "%STATE%\notice-day" set /p DAY=<"%STATE%\notice-day"
if not defined DAY set "DAY=never"
set "LINE=last notice: %DAY%"
call :say LINE
if not defined CHOSEN goto doctor_none
set "LINE=chosen: %CHOSEN% (%CHOSEN_SAID%)"
call :say LINE
echo.
"%CHOSEN%" %*
exit /b %ERRORLEVEL%
:doctor_none
echo chosen: none
echo fix: install devcoach for Windows %PROCESSOR_ARCHITECTURE% from %INSTALL% (or replace a copy above that does not start), then restart your agent.
exit /b 1

rem One candidate: doctor looks at every place, the others stop at the first of this version.
:consider
if defined FOUND if not "%MODE%"=="doctor" exit /b 0
if not exist "%~1" exit /b 0
call :seen "%~1"
if defined DUP exit /b 0
call :ask "%~1"
set /a N+=1
for %%n in (%N%) do set "PATHS%%n=%~1"
for %%n in (%N%) do set "TRIED%%n=%~1: %SAID%"
if not "%WORKS%"=="yes" exit /b 0
if "%W1% %W2%"=="devcoach %VERSION%" goto consider_this
if not defined OTHER set "OTHER_SAID=%SAID%"
if not defined OTHER set "OTHER=%~1"
exit /b 0
:consider_this
if not defined FOUND set "FOUND_SAID=%SAID%"
if not defined FOUND set "FOUND=%~1"
exit /b 0

rem One npx cache entry: taken when its platform package is this version and its binary works.
:cached
if not exist "%~1\bin\devcoach.exe" exit /b 0
set "MATCH="
rem Read with cmd's own parser (no findstr): `  "version": "x",` splits into "version" and "x".
for /f "usebackq tokens=1,2 delims=:, " %%A in ("%~1\package.json") do if "%%~A"=="version" if "%%~B"=="%VERSION%" set "MATCH=yes"
if not defined MATCH exit /b 0
call :ask "%~1\bin\devcoach.exe"
set /a N+=1
for %%n in (%N%) do set "PATHS%%n=%~1\bin\devcoach.exe"
for %%n in (%N%) do set "TRIED%%n=%~1\bin\devcoach.exe (npm cache): %SAID%"
if not "%WORKS%"=="yes" exit /b 0
set "CACHED=%~1\bin\devcoach.exe"
set "CACHED_SAID=%SAID%"
set "CACHE_LINE="
exit /b 0

rem Asks a candidate its version: SAID is its first line, or why it does not count; WORKS=yes
rem when it answered like a devcoach ("devcoach " and a digit, or a digit).
:ask
set "SAID="
set "WORKS=no"
set "W1=-"
set "W2=-"
set "LOOKS="
for /f "delims=" %%L in ('call "%~1" --version 2^>nul ^<nul') do if not defined SAID set "SAID=%%L"
if defined SAID for /f "tokens=1" %%A in ("%SAID%") do set "W1=%%A"
if defined SAID for /f "tokens=2" %%A in ("%SAID%") do set "W2=%%A"
if /i "%W1%"=="devcoach" call :digit "%W2%"
if not defined LOOKS call :digit "%W1%"
if defined LOOKS set "WORKS=yes"
if defined LOOKS exit /b 0
rem Why not: its exit code, from a second run.
"%~1" --version <nul >nul 2>nul
set "CODE=%ERRORLEVEL%"
set "SAID=exited %CODE% when asked its version"
if "%CODE%"=="0" set "SAID=answered --version with something else"
rem cmd's "cannot start it" for a file that exists, ERROR_BAD_EXE_FORMAT,
rem ERROR_EXE_MACHINE_TYPE_MISMATCH, STATUS_INVALID_IMAGE_FORMAT.
if "%CODE%"=="9009" set "SAID=cannot run on this machine (built for another system or processor?)"
if "%CODE%"=="193" set "SAID=cannot run on this machine (built for another system or processor?)"
if "%CODE%"=="216" set "SAID=cannot run on this machine (built for another system or processor?)"
if "%CODE%"=="-1073741701" set "SAID=cannot run on this machine (built for another system or processor?)"
rem STATUS_DLL_NOT_FOUND, STATUS_ENTRYPOINT_NOT_FOUND.
if "%CODE%"=="-1073741515" set "SAID=cannot start: something it needs is missing"
if "%CODE%"=="-1073741511" set "SAID=cannot start: something it needs is missing"
rem ERROR_ACCESS_DENIED, ERROR_VIRUS_INFECTED.
if "%CODE%"=="5" set "SAID=was not allowed to run (blocked by antivirus or a policy?)"
if "%CODE%"=="225" set "SAID=was not allowed to run (blocked by antivirus or a policy?)"
exit /b 0

rem LOOKS=yes when %1 starts with a digit.
:digit
set "LEAD=%~1-"
set "LEAD=%LEAD:~0,1%"
for %%d in (0 1 2 3 4 5 6 7 8 9) do if "%LEAD%"=="%%d" set "LOOKS=yes"
exit /b 0

rem DUP=yes when %1 was looked at already (call set: Wine's cmd does not read !PATHS%%n!).
:seen
set "DUP="
for /l %%n in (1,1,%N%) do call :seen_one %%n "%~1"
exit /b 0
:seen_one
call set "CMP=%%PATHS%1%%"
if /i "%CMP%"=="%~2" set "DUP=yes"
exit /b 0

rem ISDIR=yes when %1 is a folder.
:is_dir
set "ISDIR="
set "ATTRIBUTES="
for %%C in ("%~1") do set "ATTRIBUTES=%%~aC"
if "%ATTRIBUTES:~0,1%"=="d" set "ISDIR=yes"
exit /b 0

rem The candidates, one a line, and the npm cache when it had nothing.
:list
set "LINE=nothing named devcoach.exe on PATH or in %USERPROFILE%\.cargo\bin"
if "%N%"=="0" call :say2 LINE
for /l %%n in (1,1,%N%) do call :say2 TRIED%%n
if defined CACHE_LINE call :say2 CACHE_LINE
exit /b 0

rem Prints a variable as it is (delayed expansion: its & | < > ^ stay text), or indented.
:say
setlocal EnableDelayedExpansion
echo !%~1!
endlocal
exit /b 0
:say2
setlocal EnableDelayedExpansion
echo   !%~1!
endlocal
exit /b 0

rem The folder for the last failure and the notice's day (never devcoach's data folder).
:state
set "STATE="
if defined LOCALAPPDATA set "STATE=%LOCALAPPDATA%\devcoach"
if not defined STATE if defined USERPROFILE set "STATE=%USERPROFILE%\AppData\Local\devcoach"
exit /b 0

rem Writes last-failure: the day, the first argument, each candidate, then %1 (what came next).
:record
if not defined STATE exit /b 0
call :is_dir "%STATE%"
if not defined ISDIR mkdir "%STATE%"
call :is_dir "%STATE%"
if not defined ISDIR set "STATE="
if not defined ISDIR exit /b 0
set "THEN=%~1"
>"%STATE%\last-failure" call :failure_text
exit /b 0
:failure_text
set "LINE=%TODAY% %FIRST%: no working devcoach, launcher %VERSION%, Windows %PROCESSOR_ARCHITECTURE%"
call :say LINE
call :list
set "LINE=then: %THEN%"
if defined THEN call :say2 LINE
exit /b 0
