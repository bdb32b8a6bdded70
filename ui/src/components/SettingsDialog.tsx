import * as Dialog from "@radix-ui/react-dialog";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api, toIpcError, type AppInfo, type UiSettings } from "../ipc";
import { useToast } from "../toast";

const LLM_KEY = "llm-api-key";
const WEB_KEY = "web-search-api-key";
const ACTIONS = ["inquire", "summarize", "compare", "audit"] as const;

export function SettingsDialog(props: { open: boolean; onOpenChange: (o: boolean) => void; info: AppInfo; onProfileChanged: () => void }) {
  return (
    <Dialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/30" />
        <Dialog.Content className="fixed top-1/2 left-1/2 z-50 flex max-h-[88vh] w-[680px] -translate-x-1/2 -translate-y-1/2 flex-col rounded-xl bg-white shadow-xl">
          <div className="flex items-center border-b px-5 py-3">
            <Dialog.Title className="text-base font-semibold">Settings</Dialog.Title>
            <Dialog.Close className="ml-auto rounded px-2 text-slate-500 hover:bg-slate-100" aria-label="Close">
              ✕
            </Dialog.Close>
          </div>
          <Dialog.Description className="sr-only">Profile, answering mode, keys and storage.</Dialog.Description>
          {props.open && (
            <div className="min-h-0 flex-1 space-y-6 overflow-y-auto px-5 py-4 text-sm">
              <ProfileSection info={props.info} onProfileChanged={props.onProfileChanged} />
              <ModeSection />
              <KeySection name={LLM_KEY} title="API key for the language model" placeholder="sk-…" />
              <WebSection />
              <OcrSection />
              <KeySection name={WEB_KEY} title="API key for web search (Tavily)" placeholder="tvly-…" />
              <PrivacySection info={props.info} />
              <ReviewerSection info={props.info} />
              <section>
                <h3 className="mb-2 font-semibold text-slate-700">Storage</h3>
                <dl className="grid grid-cols-[140px_1fr] gap-y-1 text-slate-600">
                  <dt>Data directory</dt>
                  <dd className="font-mono text-xs break-all">{props.info.data_dir}</dd>
                  <dt>Embedding model</dt>
                  <dd className="font-mono text-xs break-all">
                    {props.info.model_dir} {props.info.model_installed ? "(installed)" : "(missing)"}
                  </dd>
                </dl>
              </section>
            </div>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function ProfileSection({ info, onProfileChanged }: { info: AppInfo; onProfileChanged: () => void }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [organisation, setOrganisation] = useState(info.profile.organisation);
  const [industry, setIndustry] = useState(info.profile.industry);
  const [location, setLocation] = useState(info.profile.location);
  const [newName, setNewName] = useState("");
  useEffect(() => {
    setOrganisation(info.profile.organisation);
    setIndustry(info.profile.industry);
    setLocation(info.profile.location);
  }, [info.profile]);
  const after = () => {
    void qc.invalidateQueries({ queryKey: ["info"] });
  };
  const save = useMutation({ mutationFn: () => api.updateProfile(organisation, industry, location), onSuccess: () => { after(); toast.info("Profile saved"); }, onError: toast.error });
  const switchTo = useMutation({ mutationFn: (id: string) => api.switchProfile(id), onSuccess: () => { onProfileChanged(); after(); }, onError: toast.error });
  const create = useMutation({
    mutationFn: () => api.createProfile(newName, "", ""),
    onSuccess: () => {
      setNewName("");
      onProfileChanged();
      after();
    },
    onError: toast.error,
  });
  return (
    <section>
      <h3 className="mb-2 font-semibold text-slate-700">Profile</h3>
      <div className="grid grid-cols-[140px_1fr] items-center gap-x-3 gap-y-2">
        <label htmlFor="profile-switch">Active profile</label>
        <select id="profile-switch" className="rounded border px-2 py-1" value={info.profile.id} onChange={(e) => switchTo.mutate(e.target.value)}>
          {info.profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <label htmlFor="organisation">Organisation</label>
        <input id="organisation" className="rounded border px-2 py-1" value={organisation} placeholder="e.g. Acme Bank" onChange={(e) => setOrganisation(e.target.value)} />
        <label htmlFor="industry">Industry</label>
        <input id="industry" className="rounded border px-2 py-1" value={industry} placeholder="e.g. Banking" onChange={(e) => setIndustry(e.target.value)} />
        <label htmlFor="location">Country</label>
        <input id="location" className="rounded border px-2 py-1" value={location} placeholder="e.g. Malaysia" onChange={(e) => setLocation(e.target.value)} />
        <span />
        <div>
          <button className="rounded-md bg-slate-800 px-3 py-1 text-white" onClick={() => save.mutate()}>
            Save profile
          </button>
        </div>
        <label htmlFor="new-profile">New profile</label>
        <form
          className="flex gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (newName.trim()) create.mutate();
          }}
        >
          <input id="new-profile" className="flex-1 rounded border px-2 py-1" value={newName} placeholder="Name" onChange={(e) => setNewName(e.target.value)} />
          <button className="rounded-md border px-3 py-1 hover:bg-slate-50" type="submit">
            Create and switch
          </button>
        </form>
      </div>
      <p className="mt-2 text-xs text-slate-500">Each profile has its own library and conversations; nothing is shared between profiles.</p>
    </section>
  );
}

function ModeSection() {
  const qc = useQueryClient();
  const toast = useToast();
  const settings = useQuery({ queryKey: ["settings"], queryFn: api.settings });
  const [draft, setDraft] = useState<UiSettings | null>(null);
  useEffect(() => {
    if (settings.data) setDraft(settings.data);
  }, [settings.data]);
  const save = useMutation({
    // The web switch saves itself; keep its stored value.
    mutationFn: (s: UiSettings) =>
      api.saveSettings({
        ...s,
        web_search: settings.data?.web_search ?? s.web_search,
        ocr: settings.data?.ocr ?? s.ocr,
        ocr_language: settings.data?.ocr_language ?? s.ocr_language,
      }),
    onSuccess: (s) => {
      setDraft(s);
      void qc.invalidateQueries({ queryKey: ["settings"] });
      void qc.invalidateQueries({ queryKey: ["info"] });
      toast.info("Answering mode saved");
    },
    onError: toast.error,
  });
  if (!draft) return null;
  return (
    <section>
      <h3 className="mb-2 font-semibold text-slate-700">Answering mode</h3>
      <div className="space-y-1">
        {(
          [
            ["extractive", "Extractive — verbatim sentences from your documents; no model, fully offline"],
            ["openai", "OpenAI — answers written by OpenAI's models (needs an API key and internet)"],
            ["local", "Local server — any OpenAI-compatible server (Ollama, llama.cpp, vLLM)"],
            ["file", "Model file — a GGUF model run inside PolicyPal (offline, no server)"],
          ] as const
        ).map(([m, label]) => (
          <label key={m} className="flex items-center gap-2">
            <input type="radio" name="mode" checked={draft.mode === m} onChange={() => setDraft({ ...draft, mode: m })} />
            {label}
          </label>
        ))}
      </div>
      {draft.mode === "file" && (
        <div className="mt-3 grid grid-cols-[140px_1fr] items-center gap-x-3 gap-y-2">
          <label htmlFor="model-file">Model file</label>
          <div className="flex gap-2">
            <input
              id="model-file"
              className="flex-1 rounded border px-2 py-1 font-mono text-xs"
              value={draft.model_file}
              placeholder="/path/to/model.gguf"
              onChange={(e) => setDraft({ ...draft, model_file: e.target.value })}
            />
            <button
              className="rounded-md border px-3 py-1 hover:bg-slate-50"
              onClick={() => {
                void api
                  .pickModelFile()
                  .then((f) => f && setDraft({ ...draft, model_file: f }))
                  .catch(toast.error);
              }}
            >
              Browse…
            </button>
          </div>
          <span />
          <p className="text-xs text-slate-500">Every action answers with this model, on this computer. Loading takes a few seconds; it is freed after five minutes without use.</p>
        </div>
      )}
      {(draft.mode === "openai" || draft.mode === "local") && (
        <div className="mt-3 grid grid-cols-[140px_1fr] items-center gap-x-3 gap-y-2">
          {draft.mode === "local" && (
            <>
              <label htmlFor="base-url">Server URL</label>
              <input id="base-url" className="rounded border px-2 py-1 font-mono text-xs" value={draft.base_url} onChange={(e) => setDraft({ ...draft, base_url: e.target.value })} />
            </>
          )}
          {ACTIONS.map((a) => (
            <ModelRow key={a} action={a} value={draft.models[a] ?? ""} onChange={(v) => setDraft({ ...draft, models: { ...draft.models, [a]: v } })} />
          ))}
        </div>
      )}
      {save.isError && <p className="mt-2 text-xs text-red-700">{toIpcError(save.error).message}</p>}
      <button className="mt-3 rounded-md bg-slate-800 px-3 py-1 text-white" onClick={() => save.mutate(draft)}>
        Save answering mode
      </button>
    </section>
  );
}

function ModelRow({ action, value, onChange }: { action: string; value: string; onChange: (v: string) => void }) {
  return (
    <>
      <label htmlFor={`model-${action}`} className="capitalize">
        {action} model
      </label>
      <input id={`model-${action}`} className="rounded border px-2 py-1 font-mono text-xs" value={value} onChange={(e) => onChange(e.target.value)} />
    </>
  );
}

function WebSection() {
  const qc = useQueryClient();
  const toast = useToast();
  const settings = useQuery({ queryKey: ["settings"], queryFn: api.settings });
  const save = useMutation({
    mutationFn: (on: boolean) => api.saveSettings({ ...(settings.data as UiSettings), web_search: on }),
    onSuccess: (s) => {
      void qc.invalidateQueries({ queryKey: ["settings"] });
      void qc.invalidateQueries({ queryKey: ["info"] });
      toast.info(s.web_search ? "Web search switched on" : "Web search switched off");
    },
    onError: toast.error,
  });
  if (!settings.data) return null;
  return (
    <section>
      <h3 className="mb-2 font-semibold text-slate-700">Web search</h3>
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={settings.data.web_search} onChange={(e) => save.mutate(e.target.checked)} />
        <span>
          Allow web search with <b>@web</b> (off by default). Web results are shown in their own section, never as library citations.
        </span>
      </label>
    </section>
  );
}

function OcrSection() {
  const qc = useQueryClient();
  const toast = useToast();
  const settings = useQuery({ queryKey: ["settings"], queryFn: api.settings });
  const save = useMutation({
    mutationFn: (change: Partial<UiSettings>) => api.saveSettings({ ...(settings.data as UiSettings), ...change }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ["settings"] }),
    onError: toast.error,
  });
  if (!settings.data) return null;
  const s = settings.data;
  const languages = s.ocr_installed.includes(s.ocr_language) ? s.ocr_installed : [s.ocr_language, ...s.ocr_installed];
  return (
    <section>
      <h3 className="mb-2 font-semibold text-slate-700">Scanned pages (OCR)</h3>
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={s.ocr} onChange={(e) => save.mutate({ ocr: e.target.checked })} />
        <span>Read pages without a text layer with OCR (Tesseract, on this computer). Applies to documents added from now on.</span>
      </label>
      <label className="mt-2 flex items-center gap-2 text-slate-600">
        Language
        <select
          className="rounded border px-1 py-0.5"
          value={s.ocr_language}
          disabled={!s.ocr}
          onChange={(e) => save.mutate({ ocr_language: e.target.value })}
          aria-label="OCR language"
        >
          {languages.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
        <span className="text-xs">Installed: {s.ocr_installed.length ? s.ocr_installed.join(", ") : "none"}</span>
      </label>
      {s.ocr_problem && <p className="mt-1 text-xs text-red-700">{s.ocr_problem}</p>}
    </section>
  );
}

function PrivacySection({ info }: { info: AppInfo }) {
  const qc = useQueryClient();
  const toast = useToast();
  const [on, setOn] = useState(info.profile.redact_pii);
  const [names, setNames] = useState(info.profile.redact_names.join("\n"));
  useEffect(() => {
    setOn(info.profile.redact_pii);
    setNames(info.profile.redact_names.join("\n"));
  }, [info.profile]);
  const save = useMutation({
    mutationFn: () => api.setPrivacy(on, names.split("\n")),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["info"] });
      toast.info("Privacy settings saved");
    },
    onError: toast.error,
  });
  return (
    <section>
      <h3 className="mb-2 font-semibold text-slate-700">PII redaction (profile {info.profile.name})</h3>
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} />
        <span>
          Replace e-mails, phone numbers, IBANs, card numbers, national ids and the names below with placeholders in anything sent to a
          language model or the web. Answers shown here keep the real text.
        </span>
      </label>
      <label htmlFor="redact-names" className="mt-2 block text-slate-600">
        Person names to redact (one per line)
      </label>
      <textarea id="redact-names" className="mt-1 h-16 w-full rounded border px-2 py-1 text-xs" value={names} onChange={(e) => setNames(e.target.value)} />
      <button className="mt-2 rounded-md bg-slate-800 px-3 py-1 text-white" onClick={() => save.mutate()}>
        Save privacy settings
      </button>
    </section>
  );
}

function ReviewerSection({ info }: { info: AppInfo }) {
  const qc = useQueryClient();
  const toast = useToast();
  const set = useMutation({
    mutationFn: (on: boolean) => api.setReviewer(on),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ["info"] });
      void qc.invalidateQueries({ queryKey: ["reviews"] });
    },
    onError: toast.error,
  });
  return (
    <section>
      <h3 className="mb-2 font-semibold text-slate-700">Expert review</h3>
      <label className="flex items-center gap-2">
        <input type="checkbox" id="reviewer" checked={info.profile.reviewer} onChange={(e) => set.mutate(e.target.checked)} />
        <span>
          {info.profile.name} is a reviewer: it sees the questions every profile on this computer sends with “Ask an expert” in its Reviews tab,
          and answers them there.
        </span>
      </label>
    </section>
  );
}

function KeySection({ name, title, placeholder }: { name: string; title: string; placeholder: string }) {
  const toast = useToast();
  const status = useQuery({ queryKey: ["key", name], queryFn: () => api.keyStatus(name) });
  const [value, setValue] = useState("");
  const set = useMutation({
    mutationFn: () => api.setKey(name, value),
    onSuccess: () => {
      setValue("");
      void status.refetch();
    },
    onError: toast.error,
  });
  const del = useMutation({ mutationFn: () => api.deleteKey(name), onSuccess: () => void status.refetch(), onError: toast.error });
  const err = status.isError ? toIpcError(status.error) : null;
  return (
    <section>
      <h3 className="mb-2 font-semibold text-slate-700">{title}</h3>
      {err ? (
        <p className={err.kind === "no_keychain" ? "text-amber-800" : "text-red-700"}>
          {err.kind === "no_keychain" ? "No OS keychain is available, so keys cannot be stored. PolicyPal never writes keys to files. " : ""}
          {err.message}
        </p>
      ) : (
        <p className="text-slate-600">
          {status.data ? (
            <>
              Stored in the OS keychain: <span className="font-mono">{status.data}</span>{" "}
              <button className="ml-2 text-red-700 hover:underline" onClick={() => del.mutate()}>
                Remove
              </button>
            </>
          ) : (
            "No key stored."
          )}
        </p>
      )}
      <form
        className="mt-2 flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) set.mutate();
        }}
      >
        <input className="flex-1 rounded border px-2 py-1 font-mono text-xs" type="password" autoComplete="off" value={value} placeholder={placeholder} onChange={(e) => setValue(e.target.value)} aria-label={title} />
        <button className="rounded-md border px-3 py-1 hover:bg-slate-50" type="submit">
          Store key
        </button>
      </form>
    </section>
  );
}
