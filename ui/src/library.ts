// The library lists every screen shows, from one cache per profile: the Documents tab, the @ menu
// and the upload dialog share one request and one refresh.
import { useQuery } from "@tanstack/react-query";
import { api } from "./ipc";

const useProfileId = () => useQuery({ queryKey: ["info"], queryFn: api.appInfo }).data?.profile.id;

export function useDocuments() {
  const pid = useProfileId();
  return useQuery({ queryKey: ["documents", pid], queryFn: api.documents, enabled: pid !== undefined });
}

export function useSets() {
  const pid = useProfileId();
  return useQuery({ queryKey: ["sets", pid], queryFn: api.sets, enabled: pid !== undefined });
}
