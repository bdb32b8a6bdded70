-- The organisation a profile works for: part of the user context the model prompts carry
-- (spec 002), asked for by the desktop app's first-run onboarding.
ALTER TABLE profiles ADD COLUMN organisation TEXT NOT NULL DEFAULT '';
