; Eval Workbench: per-user Windows installer (Inno Setup 6).  No administrator rights needed:
; installs into %LOCALAPPDATA%\Programs\Eval Workbench, Start menu entry for the user, and
; "Open with Eval Workbench" for session files (*.wbsession.json) and results files, and the
; command line: {app}\bin\workbench.cmd (which runs the console program workbench-cli.exe) on the
; user's PATH, an optional task that is on by default, so that `workbench ...` works in a new
; Command Prompt or PowerShell window as on Linux.  The uninstaller takes it off the PATH again.
;
; Build on Windows, from the repository root, after `python packaging\build.py` made
; dist\workbench (workbench.exe windowed + workbench-cli.exe console, one _internal folder):
;
;   for /f %v in ('python packaging\build.py --print-version') do iscc /DAppVersion=%v packaging\windows\workbench.iss
;
; The version comes from workbench/__init__.py through build.py (never written here); the
; CI workflow .github/workflows/installers.yml does exactly this.  Output:
; dist\EvalWorkbench-VERSION-windows-x64-setup.exe.  Silent install for tests:
;   EvalWorkbench-...-setup.exe /VERYSILENT /SUPPRESSMSGBOXES /CURRENTUSER
;
; Windows matches file types by the last extension only, so a session (name.wbsession.json) is
; a .json file: the installer adds the workbench to .json's "Open with" list (OpenWithProgids)
; rather than taking .json over.

#ifndef AppVersion
  #error Pass the version: iscc /DAppVersion=X.Y.Z (python packaging/build.py --print-version)
#endif
#define AppName "Eval Workbench"
#define AppExe "workbench.exe"
#define CliExe "workbench-cli.exe"
#define Publisher "Eval Workbench developers"
#define Root "..\.."

[Setup]
AppId={{8C1F6E2A-4B8D-4D5C-9E55-2B7A1F0C9D31}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher={#Publisher}
VersionInfoVersion={#AppVersion}
DefaultDirName={userpf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
DisableDirPage=auto
PrivilegesRequired=lowest
OutputDir={#Root}\dist
OutputBaseFilename=EvalWorkbench-{#AppVersion}-windows-x64-setup
SetupIconFile={#Root}\resources\icons\workbench.ico
UninstallDisplayIcon={app}\{#AppExe}
UninstallDisplayName={#AppName}
Compression=lzma2/max
SolidCompression=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
WizardStyle=modern
ChangesAssociations=yes
ChangesEnvironment=yes
CloseApplications=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked
Name: "addtopath"; Description: "Add the command line (workbench) to the PATH"; GroupDescription: "Command line:"

[Files]
Source: "{#Root}\dist\workbench\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs
Source: "workbench.cmd"; DestDir: "{app}\bin"; Flags: ignoreversion

[Icons]
Name: "{userprograms}\{#AppName}"; Filename: "{app}\{#AppExe}"; Comment: "Evaluation numbers with their denominators and conventions"
Name: "{userdesktop}\{#AppName}"; Filename: "{app}\{#AppExe}"; Tasks: desktopicon

[Registry]
; per-user (HKCU\Software\Classes): a program id for sessions and one for results files
Root: HKCU; Subkey: "Software\Classes\EvalWorkbench.Session"; ValueType: string; ValueName: ""; ValueData: "Eval Workbench session"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\EvalWorkbench.Session\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExe},0"
Root: HKCU; Subkey: "Software\Classes\EvalWorkbench.Session\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""
Root: HKCU; Subkey: "Software\Classes\EvalWorkbench.Results"; ValueType: string; ValueName: ""; ValueData: "Evaluation results"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\EvalWorkbench.Results\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExe},0"
Root: HKCU; Subkey: "Software\Classes\EvalWorkbench.Results\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExe}"" ""%1"""
Root: HKCU; Subkey: "Software\Classes\.json\OpenWithProgids"; ValueType: string; ValueName: "EvalWorkbench.Session"; ValueData: ""; Flags: uninsdeletevalue
Root: HKCU; Subkey: "Software\Classes\.csv\OpenWithProgids"; ValueType: string; ValueName: "EvalWorkbench.Results"; ValueData: ""; Flags: uninsdeletevalue
Root: HKCU; Subkey: "Software\Classes\.tsv\OpenWithProgids"; ValueType: string; ValueName: "EvalWorkbench.Results"; ValueData: ""; Flags: uninsdeletevalue
Root: HKCU; Subkey: "Software\Classes\.xlsx\OpenWithProgids"; ValueType: string; ValueName: "EvalWorkbench.Results"; ValueData: ""; Flags: uninsdeletevalue
Root: HKCU; Subkey: "Software\Classes\.parquet\OpenWithProgids"; ValueType: string; ValueName: "EvalWorkbench.Results"; ValueData: ""; Flags: uninsdeletevalue
; `workbench` from the Run box (Win+R)
Root: HKCU; Subkey: "Software\Microsoft\Windows\CurrentVersion\App Paths\workbench.exe"; ValueType: string; ValueName: ""; ValueData: "{app}\{#AppExe}"; Flags: uninsdeletekey
; `workbench` in a console (the "addtopath" task): {app}\bin on the user's PATH, added once;
; the uninstaller removes it (CurUninstallStepChanged below)
Root: HKCU; Subkey: "Environment"; ValueType: expandsz; ValueName: "Path"; ValueData: "{olddata};{app}\bin"; Tasks: addtopath; Check: NeedsAddPath(ExpandConstant('{app}\bin'))

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; anything the program or a tool left in its own folder (settings live in the registry, per user)
Type: filesandordirs; Name: "{app}"

[Code]
{ Is Dir missing from the user's PATH (HKCU\Environment\Path)?  Compared without case, as whole
  entries. }
function NeedsAddPath(Dir: string): Boolean;
var
  Paths: string;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths) then
  begin
    Result := True;
    exit;
  end;
  Result := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Paths) + ';') = 0;
end;

{ Take Dir off the user's PATH (the entry the installer added), leaving every other entry. }
procedure RemovePath(Dir: string);
var
  Paths: string;
  P: Integer;
begin
  if not RegQueryStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths) then
    exit;
  P := Pos(';' + Uppercase(Dir) + ';', ';' + Uppercase(Paths) + ';');
  if P = 0 then
    exit;
  if P = 1 then
    Delete(Paths, 1, Length(Dir) + 1)
  else
    Delete(Paths, P - 1, Length(Dir) + 1);
  RegWriteExpandStringValue(HKEY_CURRENT_USER, 'Environment', 'Path', Paths);
end;

procedure CurUninstallStepChanged(CurUninstallStep: TUninstallStep);
begin
  if CurUninstallStep = usUninstall then
    RemovePath(ExpandConstant('{app}\bin'));
end;
