; Eval Workbench: per-user Windows installer (Inno Setup 6).  No administrator rights needed:
; installs into %LOCALAPPDATA%\Programs\Eval Workbench, Start menu entry for the user, and
; "Open with Eval Workbench" for session files (*.wbsession.json) and results files.
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
#define Root "..\.."

[Setup]
AppId={{8C1F6E2A-4B8D-4D5C-9E55-2B7A1F0C9D31}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Eval Workbench developers
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
CloseApplications=yes

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#Root}\dist\workbench\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

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

[Run]
Filename: "{app}\{#AppExe}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

[UninstallDelete]
; anything the program or a tool left in its own folder (settings live in the registry, per user)
Type: filesandordirs; Name: "{app}"
