// The first start: who the user is (spec 002's user context, which the model prompts carry)
// and an offer to load a sample policy, so that a new user sees a cited answer within a minute.
import * as Dialog from "@radix-ui/react-dialog";
import { useState } from "react";
import { api, type AppInfo } from "../ipc";
import { useJobs } from "../jobs";
import { useToast } from "../toast";

export function Welcome({ info, onDone }: { info: AppInfo; onDone: (suggestion: string | null) => void }) {
  const toast = useToast();
  const jobs = useJobs();
  const [name, setName] = useState(info.profile.name === "default" ? "" : info.profile.name);
  const [organisation, setOrganisation] = useState(info.profile.organisation);
  const [industry, setIndustry] = useState(info.profile.industry);
  const [location, setLocation] = useState(info.profile.location);
  const [sample, setSample] = useState(true);
  const [busy, setBusy] = useState(false);

  const start = async () => {
    setBusy(true);
    try {
      await api.finishOnboarding(name, organisation, industry, location);
      let suggestion: string | null = null;
      if (sample) {
        const s = await api.sampleDocument();
        jobs.start([{ path: s.path, title: s.title, version: "", doc_type: "policy", set: "", supersedes: "" }]);
        suggestion = s.question;
      }
      onDone(suggestion);
    } catch (e) {
      toast.error(e);
      setBusy(false);
    }
  };
  const skip = async () => {
    try {
      await api.skipOnboarding();
      onDone(null);
    } catch (e) {
      toast.error(e);
    }
  };

  const field = (id: string, label: string, value: string, set: (v: string) => void, placeholder: string) => (
    <>
      <label htmlFor={id} className="text-slate-700">
        {label}
      </label>
      <input id={id} className="rounded border px-2 py-1" value={value} placeholder={placeholder} onChange={(e) => set(e.target.value)} />
    </>
  );
  return (
    <Dialog.Root open>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <Dialog.Content
          className="fixed top-1/2 left-1/2 z-50 w-[520px] -translate-x-1/2 -translate-y-1/2 rounded-xl bg-white p-6 shadow-xl"
          onEscapeKeyDown={(e) => e.preventDefault()}
          onPointerDownOutside={(e) => e.preventDefault()}
          data-testid="welcome"
        >
          <Dialog.Title className="text-lg font-semibold text-slate-800">Welcome to PolicyPal</Dialog.Title>
          <Dialog.Description className="mt-1 text-sm text-slate-600">
            Answers from your own regulations and policies, each with the page and the exact words it comes from. Everything stays
            on this computer. Tell us who you work for: a language model, if you add one, takes it into account.
          </Dialog.Description>
          <form
            className="mt-4 grid grid-cols-[120px_1fr] items-center gap-x-3 gap-y-2 text-sm"
            onSubmit={(e) => {
              e.preventDefault();
              void start();
            }}
          >
            {field("welcome-name", "Profile name", name, setName, "e.g. Jane Tan, Compliance")}
            {field("welcome-organisation", "Organisation", organisation, setOrganisation, "e.g. Acme Bank")}
            {field("welcome-industry", "Industry", industry, setIndustry, "e.g. Banking")}
            {field("welcome-location", "Country", location, setLocation, "e.g. Malaysia")}
            <span />
            <label className="flex items-start gap-2 text-slate-700">
              <input type="checkbox" className="mt-1" checked={sample} onChange={(e) => setSample(e.target.checked)} />
              <span>Add a one-page sample policy so I can try a question right away (remove it later from Documents).</span>
            </label>
            <div className="col-span-2 mt-3 flex justify-end gap-2">
              <button type="button" className="rounded-md border px-3 py-1.5 hover:bg-slate-50" onClick={() => void skip()} disabled={busy}>
                Skip
              </button>
              <button type="submit" className="rounded-md bg-blue-600 px-4 py-1.5 text-white hover:bg-blue-700" disabled={busy}>
                Get started
              </button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
